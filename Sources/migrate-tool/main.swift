import MigrateToolKit

// The generic tool: migrations come from --migrations directories.
MigrateToolCommand.main(migrator: nil, commandName: "migrate-tool")
