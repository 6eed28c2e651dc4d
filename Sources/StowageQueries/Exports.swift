// `import StowageQueries` brings Stowage along: its types appear in every signature here.
@_exported import Stowage
