package editor

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// schemaMessage describes one schema failure in English.
func schemaMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return "must be " + strings.Join(k.Want, " or ") + ", got " + k.Got
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = displayValue(w)
		}
		if len(want) == 1 {
			return "value must be " + want[0]
		}
		return "value must be one of " + strings.Join(want, ", ")
	case *kind.Const:
		return "value must be " + displayValue(k.Want)
	case *kind.Minimum:
		return "must be at least " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.Maximum:
		return "must be at most " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.ExclusiveMinimum:
		return "must be greater than " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.MultipleOf:
		return "must be a multiple of " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.MinLength:
		return countMessage("at least", k.Want, "characters", k.Got)
	case *kind.MaxLength:
		return countMessage("at most", k.Want, "characters", k.Got)
	case *kind.MinItems:
		return countMessage("at least", k.Want, "elements", k.Got)
	case *kind.MaxItems:
		return countMessage("at most", k.Want, "elements", k.Got)
	case *kind.MinProperties:
		return countMessage("at least", k.Want, "members", k.Got)
	case *kind.MaxProperties:
		return countMessage("at most", k.Want, "members", k.Got)
	case *kind.Pattern:
		return strconv.Quote(k.Got) + " does not match pattern " + strconv.Quote(k.Want)
	case *kind.UniqueItems:
		return "items at " + strconv.Itoa(k.Duplicates[0]) + " and " + strconv.Itoa(k.Duplicates[1]) + " are equal"
	case *kind.FalseSchema:
		return "no value is allowed here"
	case *kind.Format:
		return "not a valid " + k.Want
	case *kind.Required:
		return "missing required members " + strings.Join(k.Missing, ", ")
	case *kind.AdditionalProperties:
		return "members not allowed: " + strings.Join(k.Properties, ", ")
	case nil:
		return "invalid value"
	}
	if kw := k.KeywordPath(); len(kw) > 0 {
		return "fails " + strings.Join(kw, "/")
	}
	return "invalid value"
}

// countMessage describes a count bound: "must have at least 2 elements, got 1".
func countMessage(bound string, want int, unit string, got int) string {
	return "must have " + bound + " " + strconv.Itoa(want) + " " + unit + ", got " + strconv.Itoa(got)
}

// displayValue renders a primitive schema value: strings single-quoted, others as JSON.
func displayValue(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(strconv.Quote(x)[1:len(strconv.Quote(x))-1], `\"`, `"`) + "'"
	case json.Number:
		return string(x)
	case []any, map[string]any:
		return "the given value"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "the given value"
	}
	return string(b)
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
