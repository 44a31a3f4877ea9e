// Package apierr is cutroom's one error model for everything that reaches a client: an
// [Error] carries a [Kind] (what went wrong, which the server maps to an HTTP status in one
// place), a stable API code, the request field at fault and structured details.
//
// Decisions:
//   - Codes are defined with their kind, next to the rule that raises them, as package-level
//     values: var ErrProjectNotFound = apierr.Define(apierr.NotFound, "PROJECT_NOT_FOUND").
//     A code therefore cannot exist without a kind. The repository's code-table test
//     (errorcodes_test.go at the root) finds every Define in the source and checks that no
//     name has two kinds (a code means one thing) and that each appears in the docs'
//     tables; there is no registry at run time.
//   - Any error that is not an *Error (or wraps none) is internal: the server logs it and
//     answers 500 without its text. Packages that never reach HTTP (encode, compositor,
//     text, storage) return plain or sentinel errors, and their callers decide what the
//     client sees.
//   - The package imports only the standard library, so every package may use it.
package apierr
