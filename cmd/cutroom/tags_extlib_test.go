//go:build extlib && pkgconfig

package main

func init() { testBuildTags = "extlib,pkgconfig" }
