//go:build !unix

package main

// selfCPU is not measured on this system (0).
func selfCPU() float64 { return 0 }
