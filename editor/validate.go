package editor

import (
	"encoding/json"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cutroom/cutroom/editor/internal/fastschema"
	"github.com/cutroom/cutroom/editor/internal/jsontape"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Issue is one problem found by validation.
type Issue struct {
	Code    string `json:"code"`    // e.g. EDITOR_SCHEMA_INVALID or a semantic rule's code
	Path    string `json:"path"`    // JSON pointer (RFC 6901) to the offending member; "" is the whole state
	Message string `json:"message"` // human-readable
}

// Result is the outcome of validating an editor state. Errors is never nil, and is sorted
// by path (numeric tokens compare as numbers), then code, then message.
//
// Errors are what the interface calls invalid, the JSON Schema and the semantic rules, and
// only they decide Valid. Warnings (added by WithWarnings, sorted the same way) are what a
// particular server cannot resolve or draw (ReferenceIssues, FeatureIssues, assets it may
// not read): a state with warnings is valid, and export create refuses it with the
// warnings' codes. Warnings are not part of the JSON of a Result, whose members the
// interface closes: the validate route answers them in meta.warnings.
type Result struct {
	Valid    bool    `json:"valid"`
	Errors   []Issue `json:"errors"`
	Warnings []Issue `json:"-"`
}

// Err returns nil for a valid result and otherwise an *apierr.Error of the first issue's
// code whose detail reads "CODE at PATH: message (and n more)".
func (r Result) Err() error {
	if r.Valid || len(r.Errors) == 0 {
		return nil
	}
	first := r.Errors[0]
	msg := first.Message
	if n := len(r.Errors) - 1; n > 0 {
		msg += " (and " + strconv.Itoa(n) + " more)"
	}
	return newError(first.Code, first.Path, msg)
}

// Validator checks editor states against the JSON Schema and the semantic rules. Its fast
// path is compiled by NewValidator and the library's schema on first need; a Validator is
// immutable and safe for concurrent use.
type Validator struct {
	// fast decides most documents (see package fastschema); nil turns the fast path off.
	fast *fastschema.Node
	// lib returns the library's compilation of the schema, which reports every issue of a
	// document the fast path does not pass. It is compiled on first need (about 20 times
	// the fast path's cost), so a process that only sees valid states never pays for it.
	lib func() (*compiledSchema, error)
}

// NewValidator compiles the embedded schema's fast path; the library's compilation, needed
// only to report the issues of a document that does not pass it, is shared by every
// Validator and compiled on first need. It fails only if the embedded schema is broken.
func NewValidator() (*Validator, error) {
	fast, err := compileFastSchema()
	if err != nil {
		return nil, err
	}
	return &Validator{fast: fast, lib: librarySchema}, nil
}

// librarySchema compiles the library's schema once per process; it is immutable after.
var librarySchema = sync.OnceValues(compileSchema)

// defaultValidator compiles the schema on first use. The compiled Validator is immutable
// after creation, so sharing it is safe; it is built once and never modified.
var defaultValidator = sync.OnceValues(NewValidator)

// Validate checks raw against the schema and the semantic rules, using a Validator compiled
// once per process. See Validator.Validate.
func Validate(raw []byte) Result {
	v, err := defaultValidator()
	if err != nil {
		return Result{Errors: []Issue{{Code: CodeSchemaInvalid, Message: err.Error()}}}
	}
	return v.Validate(raw)
}

// Check validates raw like Validate and also returns the parsed state, using a Validator
// compiled once per process. See Validator.Check.
func Check(raw []byte) (*State, Result) {
	v, err := defaultValidator()
	if err != nil {
		return nil, Result{Errors: []Issue{{Code: CodeSchemaInvalid, Message: err.Error()}}}
	}
	return v.Check(raw)
}

// ValidateSchema checks raw against the schema only, using a Validator compiled once per
// process. See Validator.ValidateSchema.
func ValidateSchema(raw []byte) Result {
	v, err := defaultValidator()
	if err != nil {
		return Result{Errors: []Issue{{Code: CodeSchemaInvalid, Message: err.Error()}}}
	}
	return v.ValidateSchema(raw)
}

// Validate checks raw against the JSON Schema and every semantic rule, and reports all
// issues found. Schema failures of an effect's effectType, a filter's filterType and a
// transition's type have the codes EDITOR_EFFECT_TYPE_INVALID, EDITOR_FILTER_TYPE_INVALID
// and EDITOR_TRANSITION_TYPE_INVALID; other schema failures have EDITOR_SCHEMA_INVALID;
// semantic rules have their own codes (see the Code constants). Validate never panics.
func (v *Validator) Validate(raw []byte) Result {
	_, r := v.Check(raw)
	return r
}

// ValidateSchema checks raw against the JSON Schema only. Project create and sync use it:
// they reject schema violations but store states that break semantic rules.
func (v *Validator) ValidateSchema(raw []byte) Result {
	t, err := jsontape.Decode(raw)
	if err != nil {
		return result(invalidJSON(err))
	}
	return result(v.schemaIssues(t))
}

// Check validates raw like Validate and also returns the parsed state. The state is nil
// when raw is not a JSON object; it is non-nil but incomplete when the schema failed.
// Callers must not render a state whose Result is not Valid.
func (v *Validator) Check(raw []byte) (*State, Result) {
	t, err := jsontape.Decode(raw)
	if err != nil {
		return nil, result(invalidJSON(err))
	}
	if t.Kind(t.Root()) != jsontape.Object {
		return nil, result(v.schemaIssues(t))
	}
	// The typed view is built and its semantic rules checked in their own goroutine while
	// the schema is checked (both only read t).
	var s *State
	var semantic []Issue
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			// A bug must not take the process down.
			if r := recover(); r != nil {
				semantic = []Issue{internalIssue("checking the semantic rules")}
			}
		}()
		s = build(wireFromTape(t))
		semantic = semanticIssues(s)
	}()
	issues := v.schemaIssues(t)
	<-done
	if s == nil {
		return nil, result(append(issues, internalIssue("building the typed view")))
	}
	return s, result(append(issues, semantic...))
}

func invalidJSON(err error) []Issue {
	return []Issue{{Code: CodeInvalidJSON, Path: "", Message: "not valid JSON: " + err.Error()}}
}

// schemaIssues validates a decoded document against the schema: with the fast path, and
// when that does not pass it, with the library on the generic form of the document.
func (v *Validator) schemaIssues(t *jsontape.Tape) []Issue {
	if t.Kind(t.Root()) == jsontape.Object && v.fast != nil && v.fast.Check(t) == fastschema.Pass {
		// The library would report nothing (see package fastschema).
		return nil
	}
	return v.libraryIssues(t.Tree(t.Root()))
}

// libraryIssues validates a document in its generic form (map[string]any and friends, as
// jsontape.Tape.Tree or encoding/json with UseNumber give it) with the library.
func (v *Validator) libraryIssues(val any) []Issue {
	schema, err := v.lib()
	if err != nil {
		return []Issue{{Code: CodeSchemaInvalid, Message: "the embedded schema does not compile: " + err.Error()}}
	}
	var c collector
	c.validate(schema.root, val)
	doc, isObj := val.(map[string]any)
	if !isObj {
		return c.issues
	}
	// The root schema checks that each item and asset is an object with a known type; its
	// branch is checked here (see splitDispatch), in parallel for large states.
	var jobs []branchJob
	for _, member := range []struct {
		name     string
		branches map[string]*jsonschema.Schema
	}{{"items", schema.items}, {"assets", schema.assets}} {
		m, _ := doc[member.name].(map[string]any)
		for k, x := range m {
			obj, _ := x.(map[string]any)
			typ, _ := obj["type"].(string)
			if sch := member.branches[typ]; sch != nil {
				j := branchJob{sch: sch, val: obj, typ: typ, prefix: []string{member.name, k}}
				if member.name == "items" {
					j.members = schema.props[typ]
				}
				jobs = append(jobs, j)
			}
		}
	}
	c.issues = append(c.issues, v.runBranchJobs(jobs)...)
	return c.issues
}

// internalIssue reports a failure of the validator itself (a recovered panic), so that the
// state is not accepted unchecked.
func internalIssue(what string) Issue {
	return Issue{Code: CodeSchemaInvalid, Message: "internal error while " + what + "; the state could not be fully validated"}
}

// branchJob is one item or asset to validate against its branch schema.
type branchJob struct {
	sch     *jsonschema.Schema
	val     map[string]any
	typ     string
	prefix  []string
	members []memberSchema // member schemas split out of sch
}

// branchWorker validates branch jobs, remembering the issues of member values it has seen
// (by member name and content) so identical values are checked once.
type branchWorker struct {
	v    *Validator
	c    collector
	memo map[string][]Issue // relative issues by value key
	key  []byte
}

func (w *branchWorker) run(j branchJob) {
	w.c.prefix = j.prefix
	w.c.validate(j.sch, j.val)
	for i := range j.members {
		m := &j.members[i]
		val, ok := j.val[m.name]
		if !ok {
			continue
		}
		w.key = append(append(append(w.key[:0], j.typ...), 0), m.name...)
		w.key = append(w.key, 0)
		w.key, ok = appendValueKey(w.key, val, 0)
		if ok {
			if rel, seen := w.memo[string(w.key)]; seen {
				w.addRelative(rel, j.prefix, m.name)
				continue
			}
		}
		sub := collector{}
		sub.validate(m.sch, val)
		if ok && len(w.memo) < 1<<16 {
			w.memo[string(w.key)] = sub.issues
		}
		w.addRelative(sub.issues, j.prefix, m.name)
	}
}

func (w *branchWorker) addRelative(rel []Issue, prefix []string, name string) {
	if len(rel) == 0 {
		return
	}
	loc := append(append([]string{}, prefix...), name)
	base := pointer(loc...)
	for _, is := range rel {
		code := is.Code
		if is.Path == "" {
			// A failure of the member itself: effectType and filterType have their own codes.
			code = schemaCode(loc)
		}
		w.c.issues = append(w.c.issues, Issue{Code: code, Path: base + is.Path, Message: is.Message})
	}
}

// appendValueKey appends a canonical encoding of a decoded JSON value (object members in
// sorted order, strings length-prefixed) and reports false when the value is too large to
// be worth remembering.
func appendValueKey(b []byte, v any, depth int) ([]byte, bool) {
	if len(b) > 512 || depth > 8 {
		return b, false
	}
	switch x := v.(type) {
	case nil:
		return append(b, 'n'), true
	case bool:
		if x {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case json.Number:
		b = append(b, '#')
		b = append(b, x...)
		return append(b, ';'), true
	case string:
		return appendKeyString(append(b, 's'), x), true
	case []any:
		b = append(b, '[')
		for _, e := range x {
			var ok bool
			if b, ok = appendValueKey(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if len(x) > 8 {
			return b, false
		}
		var arr [8]string // sorted keys, without allocating
		keys := arr[:0]
		for k := range x {
			i := len(keys)
			keys = append(keys, k)
			for ; i > 0 && keys[i-1] > k; i-- {
				keys[i] = keys[i-1]
			}
			keys[i] = k
		}
		b = append(b, '{')
		for _, k := range keys {
			b = appendKeyString(b, k)
			var ok bool
			if b, ok = appendValueKey(b, x[k], depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendKeyString appends s with its length, which keeps keys unambiguous without escaping.
func appendKeyString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// parallelThreshold is the number of branch jobs above which they are spread over
// goroutines.
const parallelThreshold = 256

func (v *Validator) runBranchJobs(jobs []branchJob) []Issue {
	workers := min(runtime.GOMAXPROCS(0), 8)
	if len(jobs) < parallelThreshold || workers < 2 {
		w := branchWorker{v: v, memo: map[string][]Issue{}}
		for _, j := range jobs {
			w.run(j)
		}
		return w.c.issues
	}
	results := make([][]Issue, workers)
	var wg sync.WaitGroup
	for n := 0; n < workers; n++ {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			w := branchWorker{v: v, memo: map[string][]Issue{}}
			defer func() {
				// A bug must not take the process down from a goroutine nobody can recover.
				if r := recover(); r != nil {
					results[n] = append(w.c.issues, internalIssue("checking items"))
				}
			}()
			for i := n; i < len(jobs); i += workers {
				w.run(jobs[i])
			}
			results[n] = w.c.issues
		}(n)
	}
	wg.Wait()
	var out []Issue
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

func result(issues []Issue) Result {
	sortIssues(&issues)
	if issues == nil {
		issues = []Issue{}
	}
	return Result{Valid: len(issues) == 0, Errors: issues}
}

// sortIssues sorts by path, code and message, and removes exact duplicates.
func sortIssues(p *[]Issue) {
	is := *p
	sort.SliceStable(is, func(i, j int) bool {
		a, b := is[i], is[j]
		if c := comparePointers(a.Path, b.Path); c != 0 {
			return c < 0
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
	out := is[:0]
	for i, x := range is {
		if i > 0 && x == is[i-1] {
			continue
		}
		out = append(out, x)
	}
	*p = out
}

// comparePointers orders JSON pointers token by token; tokens that are both decimal
// numbers compare numerically, so /a/2 sorts before /a/10.
func comparePointers(a, b string) int {
	for a != "" || b != "" {
		if a == "" {
			return -1
		}
		if b == "" {
			return 1
		}
		var ta, tb string
		ta, a = nextToken(a)
		tb, b = nextToken(b)
		if ta == tb {
			continue
		}
		na, ea := strconv.Atoi(ta)
		nb, eb := strconv.Atoi(tb)
		if ea == nil && eb == nil && na != nb {
			if na < nb {
				return -1
			}
			return 1
		}
		if ta < tb {
			return -1
		}
		return 1
	}
	return 0
}

func nextToken(p string) (tok, rest string) {
	p = strings.TrimPrefix(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// escapeToken escapes one JSON pointer reference token.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// Pointer builds a JSON pointer (RFC 6901) from unescaped tokens, as Issue.Path has it:
// Pointer("assets", "a/b") is "/assets/a~1b".
func Pointer(tokens ...string) string { return pointer(tokens...) }

// pointer builds a JSON pointer from unescaped tokens.
func pointer(tokens ...string) string {
	n := 0
	for _, t := range tokens {
		n += len(t) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// schemaCode returns the issue code for a schema failure at the given instance location.
func schemaCode(loc []string) string {
	if len(loc) == 3 {
		switch {
		case loc[0] == "items" && loc[2] == "effectType":
			return CodeEffectTypeInvalid
		case loc[0] == "items" && loc[2] == "filterType":
			return CodeFilterTypeInvalid
		case loc[0] == "transitions" && loc[2] == "type":
			return CodeTransitionTypeInvalid
		}
	}
	return CodeSchemaInvalid
}

// collector turns jsonschema error trees into flat issues at the deepest useful paths.
// Instance locations are relative to prefix.
type collector struct {
	issues []Issue
	prefix []string
}

// validate validates val against sch and collects the errors.
func (c *collector) validate(sch *jsonschema.Schema, val any) {
	err := sch.Validate(val)
	if err == nil {
		return
	}
	if ve, ok := err.(*jsonschema.ValidationError); ok {
		c.collect(ve)
		return
	}
	c.issues = append(c.issues, Issue{Code: CodeSchemaInvalid, Path: pointer(c.prefix...), Message: err.Error()})
}

func (c *collector) add(loc []string, msg string) {
	if len(c.prefix) > 0 {
		loc = append(append(make([]string, 0, len(c.prefix)+len(loc)), c.prefix...), loc...)
	}
	c.issues = append(c.issues, Issue{Code: schemaCode(loc), Path: pointer(loc...), Message: msg})
}

func (c *collector) collect(e *jsonschema.ValidationError) {
	if e == nil {
		return
	}
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			c.add(appendLoc(loc, m), "missing required member "+strconv.Quote(m))
		}
		return
	case *kind.AdditionalProperties:
		for _, m := range k.Properties {
			c.add(appendLoc(loc, m), "member "+strconv.Quote(m)+" is not allowed here")
		}
		return
	case *kind.OneOf:
		if len(k.Subschemas) > 0 {
			c.add(loc, "value matches more than one allowed shape")
			return
		}
		c.collectAlternatives(e)
		return
	case *kind.AnyOf:
		c.collectAlternatives(e)
		return
	}
	if len(e.Causes) > 0 {
		for _, cause := range e.Causes {
			c.collect(cause)
		}
		return
	}
	c.add(loc, c.message(e.ErrorKind))
}

func appendLoc(loc []string, tok string) []string {
	out := make([]string, len(loc)+1)
	copy(out, loc)
	out[len(loc)] = tok
	return out
}

// collectAlternatives reports a failed oneOf/anyOf: branches rejected outright by the
// value's JSON type are dropped; if one branch remains its errors are reported, if several
// remain the one with the fewest errors is; if none remain one type error is reported.
func (c *collector) collectAlternatives(e *jsonschema.ValidationError) {
	var wants []string
	var got string
	var best []Issue
	found := false
	for _, b := range e.Causes {
		if t := typeRejection(b, e.InstanceLocation); t != nil {
			got = t.Got
			wants = append(wants, t.Want...)
			continue
		}
		sub := collector{prefix: c.prefix}
		sub.collect(b)
		if !found || len(sub.issues) < len(best) {
			best, found = sub.issues, true
		}
	}
	if found && len(best) > 0 {
		c.issues = append(c.issues, best...)
		return
	}
	if len(wants) > 0 {
		c.add(e.InstanceLocation, "must be "+strings.Join(dedupe(wants), " or ")+", got "+got)
		return
	}
	c.add(e.InstanceLocation, "value does not match any allowed shape")
}

// typeRejection returns the type error when branch b fails only because the value at loc
// has the wrong JSON type.
func typeRejection(b *jsonschema.ValidationError, loc []string) *kind.Type {
	for b != nil {
		if t, ok := b.ErrorKind.(*kind.Type); ok && slices.Equal(b.InstanceLocation, loc) {
			return t
		}
		if len(b.Causes) != 1 {
			return nil
		}
		b = b.Causes[0]
	}
	return nil
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func (c *collector) message(k jsonschema.ErrorKind) string { return schemaMessage(k) }
