// Package model holds the nouns several of cutroom's packages share: workspaces, API keys
// and the principal a request acts as, projects, assets, export tasks with their statuses
// and credit pools, webhook deliveries, and the one timestamp format of records and
// answers. It imports only the standard library, so every package can use these nouns
// without importing the package that stores them.
//
// Decisions:
//   - One model package rather than each noun in its owner's package: the nouns cross the
//     owners (a Principal is a Workspace and an APIKey; export tasks carry credit pools and
//     produce webhook deliveries; server, export, assets and webhook all read them), and
//     placing them with an owner would make the others import it for a type.
//   - The types are the stored records: their JSON is the bytes storage writes, so a field
//     or tag change here is a change of the database's format and needs a migration there.
//   - Only nouns, their constants and trivial methods live here. Rules (limits, credits,
//     lifecycle) stay with the packages that apply them; storage's own parameters
//     (WorkspaceInput, ExportLimits, IdempotencyRecord, ErrNoChange) stay in storage, which
//     persists these types and is imported only where a package needs the database.
package model
