package server

import (
	"errors"
	"net/http"
)

// TODO(h16 merge): remove this file once export (and the signed-link package) use apierr.
//
// legacyProblem fills p for the errors of packages not yet converted to apierr (export's
// *Error, assets' signed-link errors, and any other error with an ErrorCode method) exactly
// as the old code table did: the statuses of legacyStatus, every other code 422. It
// reports whether err was such an error.
func legacyProblem(err error, p *Problem) bool {
	var ce interface {
		error
		ErrorCode() string
	}
	if !errors.As(err, &ce) {
		return false
	}
	p.ErrorCode, p.Detail = ce.ErrorCode(), ce.Error()
	p.Status = http.StatusUnprocessableEntity
	if st, ok := legacyStatus[p.ErrorCode]; ok {
		p.Status = st
	}
	var fe interface{ ErrorField() string }
	if errors.As(err, &fe) {
		p.Field = fe.ErrorField()
	}
	var de interface{ ErrorDetails() any }
	if errors.As(err, &de) {
		p.Errors = de.ErrorDetails()
	}
	return true
}

// legacyStatus is what remains of the old code table: the codes export (and the signed
// links) still raise as strings, with the statuses they had.
var legacyStatus = map[string]int{
	"FIELD_REQUIRED":      http.StatusBadRequest,
	"INVALID_FIELD_TYPE":  http.StatusBadRequest,
	"TASK_NOT_FOUND":      http.StatusNotFound,
	"TASK_NOT_CANCELABLE": http.StatusConflict,
	"OUTPUT_EXPIRED":      http.StatusGone,
	"LINK_INVALID":        http.StatusForbidden,
	"LINK_EXPIRED":        http.StatusForbidden,
}
