// Package storage is cutroom's embedded database on bbolt. It is the only package that imports bbolt.
//
// It persists the domain's nouns, defined in package model (workspaces, API keys, projects,
// assets, export tasks, webhook deliveries), as the JSON of those types; its own types are
// the parameters of its operations (WorkspaceInput, ExportLimits) and the idempotency record
// of create requests, which keeps the created resource's JSON and status, never HTTP bytes.
//
// storage speaks no API vocabulary: it reports what it finds with sentinel errors
// (ErrProjectNotFound, ErrTaskNotFound, ...; errors.Is), wrapped with the id concerned, and
// CreateExport's refusals as a *LimitError with the numbers. Its callers decide what a
// client or an operator sees.
package storage
