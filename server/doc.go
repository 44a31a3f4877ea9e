// Package server is cutroom's HTTP interface: the gin engine, routes, authentication, request and response shapes, and the one mapping from domain error codes to HTTP problem responses.
package server
