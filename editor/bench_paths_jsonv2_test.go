//go:build goexperiment.jsonv2

package editor

import jsonv2 "encoding/json/v2"

// With GOEXPERIMENT=jsonv2 (Go 1.26 has encoding/json/v2 only behind it), the benchmarks
// also time the library path with json/v2 decoding the tree (numbers as float64, which the
// library and the reference reader take too):
//
//	GOEXPERIMENT=jsonv2 go test -run '^$' -bench 'ValidatePaths/LibraryJSONv2' ./editor/
func init() {
	validatePaths = append(validatePaths, validatePath{"LibraryJSONv2", func(v *Validator, raw []byte) (*State, Result) {
		var val any
		if err := jsonv2.Unmarshal(raw, &val); err != nil {
			return nil, result(invalidJSON(err))
		}
		return libraryCheck(v, val)
	}})
}
