// Package storage is cutroom's embedded database on bbolt. It is the only package that imports bbolt.
package storage
