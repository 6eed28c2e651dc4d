import UsersKit
