// Package fastschema is editor's fast path for the JSON-Schema check: Compile turns the
// embedded schema document into a Node, and Node.Check decides most editor states on
// their decoded tape (package jsontape) without the jsonschema library. Only a Pass is
// final; editor's Validator checks anything else with the library, which stays the source
// of truth for every issue. It lives under editor/internal because only editor uses it.
package fastschema

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cutroom/cutroom/editor/internal/jsontape"
)

// This file holds a compiled fast path for the schema check. It evaluates the draft-07
// keywords the embedded schema uses (type, enum, const, minimum, maximum, minLength,
// minItems, minProperties, required, properties, additionalProperties, items, allOf,
// oneOf, if/then/else, $ref to a definition) directly on the decoded document (a tape,
// see jsontape.Decode), in one walk without allocating, and answers pass, fail or unknown. It
// only ever decides that a document passes: anything else (fail or unknown) is checked by
// the jsonschema library, which stays the source of truth for every issue (code, path,
// message). A pass is only answered when every keyword was decided exactly, so that it
// equals the library's verdict; TestFastSchemaMatchesLibrary and FuzzFastSchema (package
// editor) prove that
// on fixtures and on random and fuzzed documents.

// Result is the verdict of the fast path on one value. The verdict of several
// keywords that must all hold is their maximum.
type Result uint8

const (
	Pass Result = iota
	Unknown
	Fail
)

// JSON types as a bit set.
const (
	tNull uint8 = 1 << iota
	tBool
	tNumber
	tInteger
	tString
	tArray
	tObject
)

// Node is one compiled schema. A nil *Node accepts everything.
type Node struct {
	id          uint32 // unique among the nodes of one compiled schema (see numberNodes)
	unsupported bool   // a keyword the fast path does not evaluate: always unknown
	never       bool   // the false schema
	ref         *Node  // draft-07: a $ref replaces every sibling keyword
	types       uint8  // 0: any type
	enum        []any  // string or json.Number members; nil when absent
	hasEnum     bool
	minimum     *decimal // nil when absent
	maximum     *decimal
	minLength   int // -1 when absent
	minItems    int
	minProps    int
	required    []string
	props       map[string]*Node
	// reqProps is the number of required names that are in props; reqIn tells which
	// props are required. reqOut lists the required names that are not in props.
	reqProps  int
	reqIn     map[string]bool
	members   map[string]fastMember // props with reqIn, for one lookup per member
	reqOut    []string
	addlFalse bool
	addl      *Node
	items     *Node
	allOf     []*Node
	// dispatch holds the members of allOf of the form {if: {required: [dispatchProp],
	// properties: {dispatchProp: {const: c}}}, then: S} (what discriminate writes) as S by
	// c: on an object only the branch named by its member applies.
	dispatchProp string
	dispatch     map[string]*Node
	oneOf        []*Node
	ifS          *Node
	thenS        *Node
	elseS        *Node
}

// fastMember is the schema of a member and whether the member is required.
type fastMember struct {
	node     *Node
	required bool
}

// fastCompiler compiles schema documents as decoded by jsonschema.UnmarshalJSON
// (numbers are json.Number).
type fastCompiler struct {
	defs map[string]any
	done map[string]*Node
}

// Compile compiles the root schema document root. It never fails: what it cannot
// evaluate exactly becomes an unsupported node, whose verdict is unknown.
func Compile(root map[string]any) *Node {
	defs, _ := root["definitions"].(map[string]any)
	c := &fastCompiler{defs: defs, done: map[string]*Node{}}
	n := c.compile(root)
	numberNodes(n, map[*Node]bool{})
	return n
}

// numberNodes gives every node reachable from n a distinct id.
func numberNodes(n *Node, seen map[*Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	n.id = uint32(len(seen))
	kids := []*Node{n.ref, n.addl, n.items, n.ifS, n.thenS, n.elseS}
	kids = append(kids, n.allOf...)
	kids = append(kids, n.oneOf...)
	for _, k := range slices.Sorted(maps.Keys(n.props)) {
		kids = append(kids, n.props[k])
	}
	for _, k := range slices.Sorted(maps.Keys(n.dispatch)) {
		kids = append(kids, n.dispatch[k])
	}
	for _, k := range kids {
		numberNodes(k, seen)
	}
}

func (c *fastCompiler) compile(s any) *Node {
	switch x := s.(type) {
	case bool:
		if x {
			return nil
		}
		return &Node{never: true}
	case map[string]any:
		return c.compileObject(x)
	}
	return &Node{unsupported: true}
}

func (c *fastCompiler) compileObject(s map[string]any) *Node {
	n := &Node{minLength: -1, minItems: -1, minProps: -1}
	if ref, ok := s["$ref"]; ok {
		r, _ := ref.(string)
		name, ok := strings.CutPrefix(r, "#/definitions/")
		def, found := c.defs[name]
		if !ok || !found || strings.ContainsAny(name, "~/%") {
			n.unsupported = true
			return n
		}
		if d, ok := c.done[name]; ok {
			n.ref = d
			return n
		}
		d := &Node{}
		c.done[name] = d
		*d = *c.compile(def).orTrue()
		n.ref = d
		return n
	}
	for k, v := range s {
		ok := true
		switch k {
		case "$schema", "$id", "$comment", "title", "description", "definitions", "examples", "default":
		case "type":
			n.types, ok = fastTypes(v)
		case "enum":
			n.enum, ok = fastEnum(v)
			n.hasEnum = true
		case "const":
			n.enum, ok = fastEnum([]any{v})
			n.hasEnum = true
		case "minimum":
			n.minimum, ok = fastNumberLit(v)
		case "maximum":
			n.maximum, ok = fastNumberLit(v)
		case "minLength":
			n.minLength, ok = fastCount(v)
		case "minItems":
			n.minItems, ok = fastCount(v)
		case "minProperties":
			n.minProps, ok = fastCount(v)
		case "required":
			arr, isArr := v.([]any)
			ok = isArr
			for _, r := range arr {
				rs, isStr := r.(string)
				ok = ok && isStr
				n.required = append(n.required, rs)
			}
		case "properties":
			m, isMap := v.(map[string]any)
			ok = isMap
			n.props = make(map[string]*Node, len(m))
			for name, ps := range m {
				n.props[name] = c.compile(ps)
			}
		case "additionalProperties":
			if b, isBool := v.(bool); isBool {
				n.addlFalse = !b
			} else {
				n.addl = c.compile(v)
			}
		case "items":
			_, isMap := v.(map[string]any)
			_, isBool := v.(bool)
			ok = isMap || isBool // the array form is not used by the schema
			n.items = c.compile(v)
		case "allOf", "oneOf":
			arr, isArr := v.([]any)
			ok = isArr && len(arr) > 0
			if k == "allOf" {
				n.dispatchProp, n.dispatch, arr = c.splitDispatch(arr)
			}
			var subs []*Node
			for _, b := range arr {
				subs = append(subs, c.compile(b))
			}
			if k == "allOf" {
				n.allOf = subs
			} else {
				n.oneOf = subs
			}
		case "if":
			n.ifS = c.compile(v).orTrue()
		case "then":
			n.thenS = c.compile(v)
		case "else":
			n.elseS = c.compile(v)
		default:
			if !strings.HasPrefix(k, "x-") {
				ok = false
			}
		}
		if !ok {
			n.unsupported = true
		}
	}
	n.reqIn = map[string]bool{}
	for _, name := range n.required {
		if n.reqIn[name] {
			continue // a repeated name
		}
		if _, ok := n.props[name]; ok {
			n.reqIn[name] = true
			n.reqProps++
		} else if !containsString(n.reqOut, name) {
			n.reqOut = append(n.reqOut, name)
		}
	}
	n.members = make(map[string]fastMember, len(n.props))
	for name, ps := range n.props {
		n.members[name] = fastMember{ps, n.reqIn[name]}
	}
	return n
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// splitDispatch takes the if/then members that dispatch on one member's string const out
// of an allOf, and returns them by const with the members left.
func (c *fastCompiler) splitDispatch(all []any) (string, map[string]*Node, []any) {
	prop := ""
	dispatch := map[string]*Node{}
	var rest []any
	for _, m := range all {
		if p, cst, then, ok := dispatchBranch(m); ok && (prop == "" || p == prop) && dispatch[cst] == nil {
			prop = p
			dispatch[cst] = c.compile(then).orTrue()
			continue
		}
		rest = append(rest, m)
	}
	if len(dispatch) < 2 {
		return "", nil, all
	}
	return prop, dispatch, rest
}

// dispatchBranch matches {if: {required: [p], properties: {p: {const: c}}}, then: S} with
// a string c.
func dispatchBranch(m any) (p, c string, then any, ok bool) {
	mm, _ := m.(map[string]any)
	iff, _ := mm["if"].(map[string]any)
	then, hasThen := mm["then"]
	req, _ := iff["required"].([]any)
	props, _ := iff["properties"].(map[string]any)
	if len(mm) != 2 || !hasThen || len(iff) != 2 || len(req) != 1 || len(props) != 1 {
		return "", "", nil, false
	}
	p, _ = req[0].(string)
	ps, _ := props[p].(map[string]any)
	c, isStr := ps["const"].(string)
	if p == "" || len(ps) != 1 || !isStr {
		return "", "", nil, false
	}
	return p, c, then, true
}

// orTrue returns n, or the node of the true schema for nil.
func (n *Node) orTrue() *Node {
	if n == nil {
		return &Node{minLength: -1, minItems: -1, minProps: -1}
	}
	return n
}

func fastTypes(v any) (uint8, bool) {
	one := func(s any) (uint8, bool) {
		switch s {
		case "null":
			return tNull, true
		case "boolean":
			return tBool, true
		case "number":
			return tNumber, true
		case "integer":
			return tInteger, true
		case "string":
			return tString, true
		case "array":
			return tArray, true
		case "object":
			return tObject, true
		}
		return 0, false
	}
	if arr, ok := v.([]any); ok {
		var t uint8
		for _, x := range arr {
			b, ok := one(x)
			if !ok {
				return 0, false
			}
			t |= b
		}
		return t, t != 0
	}
	return one(v)
}

func fastEnum(v any) ([]any, bool) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, false
	}
	for _, e := range arr {
		switch x := e.(type) {
		case string:
		case json.Number:
			if _, ok := splitDecimal(string(x)); !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return arr, true
}

func fastNumberLit(v any) (*decimal, bool) {
	x, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	d, ok := splitDecimal(string(x))
	return &d, ok
}

func fastCount(v any) (int, bool) {
	x, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	d, ok := splitDecimal(string(x))
	if !ok || d.neg || d.frac != "" || len(d.int) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range d.int {
		n = n*10 + int(c-'0')
	}
	return n, true
}

// decimal is a number literal without exponent, as sign, integer digits without leading
// zeros and fraction digits without trailing zeros; zero is {false, "", ""}.
type decimal struct {
	neg       bool
	int, frac string
}

// splitDecimal splits a JSON number literal; it reports false for literals with an
// exponent (the fast path leaves those to the library).
func splitDecimal(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	if s == "" {
		return d, false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && c != '.' {
			return d, false
		}
	}
	ip, fp, _ := strings.Cut(s, ".")
	if strings.Contains(fp, ".") {
		return d, false
	}
	d.int = strings.TrimLeft(ip, "0")
	d.frac = strings.TrimRight(fp, "0")
	if d.int == "" && d.frac == "" {
		d.neg = false
	}
	return d, true
}

// cmpDecimal compares two decimals exactly.
func cmpDecimal(a, b decimal) int {
	az := a.int == "" && a.frac == ""
	bz := b.int == "" && b.frac == ""
	switch {
	case az && bz:
		return 0
	case a.neg != b.neg:
		if a.neg {
			return -1
		}
		return 1
	}
	// Same sign (zero counts as positive here and is smaller than any positive magnitude).
	m := cmpMagnitude(a, b)
	if a.neg {
		return -m
	}
	return m
}

func cmpMagnitude(a, b decimal) int {
	if len(a.int) != len(b.int) {
		if len(a.int) < len(b.int) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.int, b.int); c != 0 {
		return c
	}
	return strings.Compare(a.frac, b.frac) // no trailing zeros: lexical order is numeric order
}

// fastRun is the state of one check: the document, and verdicts on small objects by
// schema and node (jsontape.Decode shares identical short objects, so most repeat).
type fastRun struct {
	t    *jsontape.Tape
	memo map[uint64]Result // by node id << 32 | document node
}

// maxMemoMembers is the size of the largest object whose verdict is remembered.
const maxMemoMembers = 4

// Check returns the verdict of n on the document t.
func (n *Node) Check(t *jsontape.Tape) Result {
	run := fastRun{t: t, memo: map[uint64]Result{}}
	return n.eval(&run, t.Root())
}

func (n *Node) eval(run *fastRun, v uint32) Result {
	if n == nil {
		return Pass
	}
	if n.ref != nil {
		return n.ref.eval(run, v)
	}
	if n.unsupported {
		return Unknown
	}
	if n.never {
		return Fail
	}
	t := run.t
	kind := t.Kind(v)
	if kind == jsontape.Object {
		if size := t.Len(v); size <= maxMemoMembers && size > 0 {
			key := uint64(n.id)<<32 | uint64(v)
			if got, ok := run.memo[key]; ok {
				return got
			}
			got := n.evalObject(run, v)
			run.memo[key] = got
			return got
		}
		return n.evalObject(run, v)
	}
	r := Pass
	// A number's decimal form is only needed for integer types, numeric enums and bounds.
	var num decimal
	numOK, isNum := false, kind == jsontape.Number
	if isNum && (n.minimum != nil || n.maximum != nil || n.hasEnum || (n.types&tInteger != 0 && n.types&tNumber == 0)) {
		num, numOK = splitDecimal(t.Text(v))
	}
	if n.types != 0 {
		if r = max(r, n.checkType(kind, isNum, num, numOK)); r == Fail {
			return r
		}
	}
	if n.hasEnum {
		if r = max(r, n.checkEnum(t, v, isNum, num, numOK)); r == Fail {
			return r
		}
	}
	switch kind {
	case jsontape.Number:
		if n.minimum != nil || n.maximum != nil {
			if !numOK {
				r = max(r, Unknown)
			} else {
				if n.minimum != nil && cmpDecimal(num, *n.minimum) < 0 {
					return Fail
				}
				if n.maximum != nil && cmpDecimal(num, *n.maximum) > 0 {
					return Fail
				}
			}
		}
	case jsontape.String:
		if n.minLength >= 0 && utf8.RuneCountInString(t.Text(v)) < n.minLength {
			return Fail
		}
	case jsontape.Array:
		elems := t.Elems(v)
		if n.minItems >= 0 && len(elems) < n.minItems {
			return Fail
		}
		if n.items != nil {
			for _, e := range elems {
				if r = max(r, n.items.eval(run, e)); r == Fail {
					return r
				}
			}
		}
	}
	return n.evalApplicators(run, v, r)
}

// evalObject evaluates n's object keywords and applicators on the object x.
func (n *Node) evalObject(run *fastRun, x uint32) Result {
	r := Pass
	if n.types != 0 && n.types&tObject == 0 {
		return Fail
	}
	if n.hasEnum {
		return Fail // enum members are strings and numbers
	}
	t := run.t
	m := t.Members(x)
	size := len(m) / 2
	if n.minProps >= 0 && size < n.minProps {
		return Fail
	}
	for _, name := range n.reqOut {
		if _, ok := t.Member(x, name); !ok {
			return Fail
		}
	}
	if !n.addlFalse && n.addl == nil && 2*len(n.props) < size {
		// Only the listed members are constrained, and there are fewer of them than
		// members (the dispatch's if schemas list one): look them up.
		for k, ps := range n.props {
			if e, ok := t.Member(x, k); ok {
				if r = max(r, ps.eval(run, e)); r == Fail {
					return r
				}
			} else if n.reqIn[k] {
				return Fail
			}
		}
	} else {
		required := 0
		for j := 0; j < len(m); j += 2 {
			k, e := t.Text(m[j]), m[j+1]
			if ps, ok := n.members[k]; ok {
				if ps.required {
					required++
				}
				r = max(r, ps.node.eval(run, e))
			} else if n.addlFalse {
				return Fail
			} else if n.addl != nil {
				r = max(r, n.addl.eval(run, e))
			}
			if r == Fail {
				return r
			}
		}
		if required < n.reqProps {
			return Fail
		}
	}
	return n.evalApplicators(run, x, r)
}

// evalApplicators combines r with the verdicts of allOf, oneOf and if/then/else on v.
func (n *Node) evalApplicators(run *fastRun, v uint32, r Result) Result {
	for _, s := range n.allOf {
		if r = max(r, s.eval(run, v)); r == Fail {
			return r
		}
	}
	if n.dispatch != nil {
		t := run.t
		if t.Kind(v) != jsontape.Object {
			// required and properties ignore other values: every if passes.
			for _, s := range n.dispatch {
				if r = max(r, s.eval(run, v)); r == Fail {
					return r
				}
			}
		} else if e, ok := t.Member(v, n.dispatchProp); ok && t.Kind(e) == jsontape.String {
			if then := n.dispatch[t.Text(e)]; then != nil {
				if r = max(r, then.eval(run, v)); r == Fail {
					return r
				}
			}
		}
	}
	if n.oneOf != nil {
		if r = max(r, n.checkOneOf(run, v)); r == Fail {
			return r
		}
	}
	if n.ifS != nil {
		switch n.ifS.eval(run, v) {
		case Pass:
			r = max(r, n.thenS.eval(run, v))
		case Fail:
			r = max(r, n.elseS.eval(run, v))
		default:
			r = max(r, Unknown)
		}
	}
	return r
}

// kindType returns the JSON type bit of a tape kind.
func kindType(kind uint8) uint8 {
	switch kind {
	case jsontape.Null:
		return tNull
	case jsontape.False, jsontape.True:
		return tBool
	case jsontape.Number:
		return tNumber
	case jsontape.String:
		return tString
	case jsontape.Array:
		return tArray
	case jsontape.Object:
		return tObject
	}
	return 0
}

func (n *Node) checkType(kind uint8, isNum bool, num decimal, numOK bool) Result {
	t := kindType(kind)
	if t == 0 {
		return Unknown
	}
	if n.types&t != 0 {
		return Pass
	}
	if isNum && n.types&tInteger != 0 {
		if !numOK {
			return Unknown // an exponent: leave integrality to the library
		}
		if num.frac == "" {
			return Pass
		}
	}
	return Fail
}

func (n *Node) checkEnum(t *jsontape.Tape, v uint32, isNum bool, num decimal, numOK bool) Result {
	r := Fail
	isStr := t.Kind(v) == jsontape.String
	for _, e := range n.enum {
		switch x := e.(type) {
		case string:
			if isStr && t.Text(v) == x {
				return Pass
			}
		case json.Number:
			if !isNum {
				continue
			}
			if !numOK {
				r = Unknown
				continue
			}
			b, _ := splitDecimal(string(x))
			if cmpDecimal(num, b) == 0 {
				return Pass
			}
		}
	}
	return r
}

func (n *Node) checkOneOf(run *fastRun, v uint32) Result {
	passed, unknown := 0, 0
	for _, s := range n.oneOf {
		switch s.eval(run, v) {
		case Pass:
			passed++
		case Unknown:
			unknown++
		}
	}
	switch {
	case passed > 1:
		return Fail
	case passed == 1 && unknown == 0:
		return Pass
	case passed == 0 && unknown == 0:
		return Fail
	}
	return Unknown
}
