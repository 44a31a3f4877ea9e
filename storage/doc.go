// Package storage is cutroom's embedded database on bbolt. It is the only package that imports bbolt.
//
// storage speaks no API vocabulary: it reports what it finds with sentinel errors
// (ErrProjectNotFound, ErrTaskNotFound, ...; errors.Is), wrapped with the id concerned, and
// CreateExport's refusals as a *LimitError with the numbers. Its callers decide what a
// client or an operator sees.
package storage
