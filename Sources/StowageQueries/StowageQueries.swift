@_exported import Stowage
