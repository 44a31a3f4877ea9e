package editor

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cutroom/cutroom/editor/internal/fastschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is the published JSON Schema (draft-07) of editor state v1, byte for byte.
//
//go:embed editor-state.v1.schema.json
var schemaJSON string

const schemaURL = "https://api.indream.ai/schemas/editor-state.v1.schema.json"

// SchemaJSON returns a copy of the embedded JSON Schema of editor state v1.
func SchemaJSON() []byte { return []byte(schemaJSON) }

// compiledSchema is the embedded schema compiled for fast validation: the root schema with
// the per-item and per-asset branch checks split out (see splitDispatch), and those branch
// schemas by discriminator value. It is immutable after compileSchema.
type compiledSchema struct {
	root   *jsonschema.Schema
	items  map[string]*jsonschema.Schema // by item "type"
	assets map[string]*jsonschema.Schema // by asset "type"
	// props holds, by item type, the member schemas split out of the item's branch
	// schema (see splitProperties); the caller checks them and reuses the result for
	// identical member values.
	props map[string][]memberSchema
}

// memberSchema is the schema of one member of an item type.
type memberSchema struct {
	name string
	sch  *jsonschema.Schema
}

// compileSchema compiles the embedded schema after three rewrites that keep the set of
// accepted documents unchanged: discriminate (oneOf by type -> if/then dispatch),
// flattenAllOf (merging allOf of plain object schemas), and splitDispatch (items and
// assets are checked against their own branch by the caller, not by the root schema).
func compileSchema() (*compiledSchema, error) {
	root, err := rewrittenSchema()
	if err != nil {
		return nil, err
	}
	props, _ := root["properties"].(map[string]any)
	split := func(member string) map[string]string {
		m, _ := props[member].(map[string]any)
		ap, _ := m["additionalProperties"].(map[string]any)
		if ap == nil {
			return nil
		}
		return splitDispatch(ap)
	}
	itemRefs, assetRefs := split("items"), split("assets")
	defs, _ := root["definitions"].(map[string]any)
	splitDoc := map[string]any{}
	root[splitKeyword] = splitDoc
	propNames := map[string][]string{}
	for t, ref := range itemRefs {
		def := strings.TrimPrefix(ref, "#/definitions/")
		if d, ok := defs[def].(map[string]any); ok {
			if props := splitProperties(d); props != nil {
				splitDoc[t] = props
				propNames[t] = sortedKeys(props)
			}
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(schemaURL, root); err != nil {
		return nil, fmt.Errorf("editor: add schema: %w", err)
	}
	cs := &compiledSchema{items: map[string]*jsonschema.Schema{}, assets: map[string]*jsonschema.Schema{}, props: map[string][]memberSchema{}}
	if cs.root, err = c.Compile(schemaURL); err != nil {
		return nil, fmt.Errorf("editor: compile schema: %w", err)
	}
	for t, names := range propNames {
		for _, name := range names {
			loc := "#/" + splitKeyword + "/" + escapeToken(t) + "/" + escapeToken(name)
			sch, err := c.Compile(schemaURL + loc)
			if err != nil {
				return nil, fmt.Errorf("editor: compile %s: %w", loc, err)
			}
			cs.props[t] = append(cs.props[t], memberSchema{name: name, sch: sch})
		}
	}
	for dst, refs := range map[*map[string]*jsonschema.Schema]map[string]string{&cs.items: itemRefs, &cs.assets: assetRefs} {
		for val, ref := range refs {
			sch, err := c.Compile(schemaURL + ref)
			if err != nil {
				return nil, fmt.Errorf("editor: compile %s: %w", ref, err)
			}
			(*dst)[val] = sch
		}
	}
	return cs, nil
}

// rewrittenSchema parses the embedded schema afresh with the rewrites both compilations
// share (discriminate, flattenAllOf).
func rewrittenSchema() (map[string]any, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("editor: embedded schema: %w", err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("editor: embedded schema is not an object")
	}
	discriminate(root)
	flattenAllOf(root)
	return root, nil
}

// compileFastSchema compiles the fast path from the embedded schema with the first two
// rewrites of compileSchema (discriminate and flattenAllOf; the dispatch and member splits
// only serve the library's error reporting).
func compileFastSchema() (*fastschema.Node, error) {
	root, err := rewrittenSchema()
	if err != nil {
		return nil, err
	}
	return fastschema.Compile(root), nil
}

// splitKeyword is the root member under which splitProperties' member schemas are kept
// (so that they can be compiled by JSON pointer); validators ignore unknown keywords.
const splitKeyword = "x-cutroom-split-members"

// splitProperties removes the properties keyword from the item definition d and returns
// it. The caller validates each present member against its schema itself, which is the
// same check (properties only constrains members that are present, and d allows other
// members), and can reuse the result for identical values: editor states repeat most
// member values (colours, fonts, scales, {"value":1,"keyframes":[]}) thousands of times.
// It returns nil when d does not allow additional members.
func splitProperties(d map[string]any) map[string]any {
	props, ok := d["properties"].(map[string]any)
	if !ok {
		return nil
	}
	if ap, has := d["additionalProperties"]; has && ap != true {
		return nil
	}
	delete(d, "properties")
	return props
}

// splitDispatch takes a schema rewritten by discriminate (allOf: [guard, {if, then: {$ref}}
// ...]) and keeps only the guard, returning the $ref of each branch by discriminator value.
// The caller then validates each instance that passes the guard against its branch, which
// together is the same check. It returns nil (and changes nothing) for any other shape.
func splitDispatch(node map[string]any) map[string]string {
	all, ok := node["allOf"].([]any)
	if !ok {
		return nil
	}
	refs := map[string]string{}
	var keep []any
	for _, m := range all {
		mm, _ := m.(map[string]any)
		iff, hasIf := mm["if"].(map[string]any)
		if !hasIf {
			keep = append(keep, m)
			continue
		}
		then, _ := mm["then"].(map[string]any)
		ref, _ := then["$ref"].(string)
		props, _ := iff["properties"].(map[string]any)
		if ref == "" || len(props) != 1 || len(then) != 1 || !strings.HasPrefix(ref, "#/") {
			return nil
		}
		for _, ps := range props {
			c, _ := ps.(map[string]any)["const"].(string)
			if c == "" {
				return nil
			}
			refs[c] = ref
		}
	}
	if len(refs) == 0 {
		return nil
	}
	node["allOf"] = keep
	return refs
}

// flattenAllOf merges, in place, the members of every allOf that are plain object schemas
// (only type "object", required, properties, and additionalProperties true or absent,
// following $ref) into the schema holding the allOf, when that schema is plain too. A
// property defined by several members becomes the allOf of their schemas. This accepts the
// same documents, but the validator walks each object's members once instead of once per
// member schema.
func flattenAllOf(root map[string]any) {
	defs, _ := root["definitions"].(map[string]any)
	done := map[string]bool{}
	var flatten func(s map[string]any, depth int)
	resolve := func(m map[string]any, depth int) map[string]any {
		ref, ok := m["$ref"].(string)
		if !ok {
			flatten(m, depth+1)
			return m
		}
		if len(m) != 1 || !strings.HasPrefix(ref, "#/definitions/") {
			return nil
		}
		name := strings.TrimPrefix(ref, "#/definitions/")
		d, _ := defs[name].(map[string]any)
		if d != nil && !done[name] {
			done[name] = true
			flatten(d, depth+1)
		}
		return d
	}
	flatten = func(s map[string]any, depth int) {
		if depth > 32 {
			return
		}
		all, ok := s["allOf"].([]any)
		if !ok || !isPlainObject(s, true) {
			return
		}
		var keep []any
		for _, m := range all {
			mm, _ := m.(map[string]any)
			d := resolve(mm, depth)
			if d == nil || !isPlainObject(d, false) {
				keep = append(keep, m)
				continue
			}
			mergePlain(s, d)
		}
		if len(keep) == 0 {
			delete(s, "allOf")
		} else {
			s["allOf"] = keep
		}
	}
	for name, d := range defs {
		if dm, ok := d.(map[string]any); ok && !done[name] {
			done[name] = true
			flatten(dm, 0)
		}
	}
}

// isPlainObject reports whether s only constrains an object's type, required members and
// member schemas (allowing an allOf when withAllOf).
func isPlainObject(s map[string]any, withAllOf bool) bool {
	for k, v := range s {
		switch k {
		case "required", "properties", "description", "title", "$comment":
		case "type":
			if v != "object" {
				return false
			}
		case "additionalProperties":
			if v != true {
				return false
			}
		case "allOf":
			if !withAllOf {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// mergePlain adds plain object schema d's constraints to s (without modifying d or the
// schemas it shares).
func mergePlain(s, d map[string]any) {
	if t, ok := d["type"]; ok {
		s["type"] = t
	}
	if r, ok := d["required"].([]any); ok {
		have := map[any]bool{}
		req, _ := s["required"].([]any)
		for _, x := range req {
			have[x] = true
		}
		merged := append([]any(nil), req...)
		for _, x := range r {
			if !have[x] {
				have[x] = true
				merged = append(merged, x)
			}
		}
		s["required"] = merged
	}
	if p, ok := d["properties"].(map[string]any); ok {
		sp, _ := s["properties"].(map[string]any)
		np := make(map[string]any, len(sp)+len(p))
		for k, v := range sp {
			np[k] = v
		}
		for k, v := range p {
			if old, ok := np[k]; ok {
				np[k] = map[string]any{"allOf": []any{old, v}}
			} else {
				np[k] = v
			}
		}
		s["properties"] = np
	}
}

// discriminate rewrites, in place, every oneOf whose branches all require an object with a
// member (type or chartType) fixed by const to pairwise distinct values. Such a oneOf
// passes exactly when the member's value is one of the consts and the one branch with that
// const passes, so it is replaced by the equivalent
//
//	allOf: [ {type: object, required: [p], properties: {p: {enum: [consts]}}},
//	         {if: {required: [p], properties: {p: {const: c_i}}}, then: branch_i}... ]
//
// The result accepts exactly the same documents, but validates only the selected branch
// (instead of every branch until one matches) and reports that branch's errors at their
// own paths instead of one "oneOf failed" with a cause per branch.
func discriminate(root map[string]any) {
	type rewrite struct {
		node   map[string]any
		prop   string
		consts []any
	}
	var todo []rewrite
	var walk func(node any)
	walk = func(node any) {
		switch n := node.(type) {
		case []any:
			for _, v := range n {
				walk(v)
			}
		case map[string]any:
			for _, v := range n {
				walk(v)
			}
			branches, ok := n["oneOf"].([]any)
			if !ok || len(branches) < 2 {
				return
			}
			for _, p := range []string{"type", "chartType"} {
				if consts, ok := branchConsts(branches, p, root); ok {
					todo = append(todo, rewrite{n, p, consts})
					return
				}
			}
		}
	}
	walk(root)
	// Apply after the walk, so that constOf sees every oneOf as written.
	for _, r := range todo {
		n, p, consts := r.node, r.prop, r.consts
		branches := n["oneOf"].([]any)
		guard := map[string]any{
			"type":       "object",
			"required":   []any{p},
			"properties": map[string]any{p: map[string]any{"enum": consts}},
		}
		all, _ := n["allOf"].([]any)
		all = append(all, guard)
		for i, b := range branches {
			all = append(all, map[string]any{
				"if": map[string]any{
					"required":   []any{p},
					"properties": map[string]any{p: map[string]any{"const": consts[i]}},
				},
				"then": b,
			})
		}
		delete(n, "oneOf")
		n["allOf"] = all
	}
}

// branchConsts returns the const of member p in each branch, when every branch requires
// an object with p and the consts are distinct strings.
func branchConsts(branches []any, p string, root map[string]any) ([]any, bool) {
	consts := make([]any, len(branches))
	seen := map[string]bool{}
	for i, b := range branches {
		c, ok := constOf(b, p, root, 0)
		if !ok || !requiresObjectWith(b, p, root, 0) {
			return nil, false
		}
		s, ok := c.(string)
		if !ok || seen[s] {
			return nil, false
		}
		seen[s] = true
		consts[i] = s
	}
	return consts, true
}

func deref(s map[string]any, root map[string]any) map[string]any {
	ref, ok := s["$ref"].(string)
	if !ok || !strings.HasPrefix(ref, "#/definitions/") {
		return nil
	}
	defs, _ := root["definitions"].(map[string]any)
	d, _ := defs[strings.TrimPrefix(ref, "#/definitions/")].(map[string]any)
	return d
}

// constOf finds properties[p].const in s, following $ref and allOf.
func constOf(node any, p string, root map[string]any, depth int) (any, bool) {
	s, ok := node.(map[string]any)
	if !ok || depth > 8 {
		return nil, false
	}
	if d := deref(s, root); d != nil {
		return constOf(d, p, root, depth+1)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		if ps, ok := props[p].(map[string]any); ok {
			if c, ok := ps["const"]; ok {
				return c, true
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, a := range all {
			if c, ok := constOf(a, p, root, depth+1); ok {
				return c, true
			}
		}
	}
	// A oneOf whose branches all fix p to the same value fixes it too.
	if one, ok := s["oneOf"].([]any); ok && len(one) > 0 {
		var first any
		for i, b := range one {
			c, ok := constOf(b, p, root, depth+1)
			if !ok || (i > 0 && c != first) {
				return nil, false
			}
			first = c
		}
		return first, true
	}
	return nil, false
}

// requiresObjectWith reports whether s (following $ref and allOf) requires an object that
// has member p.
func requiresObjectWith(node any, p string, root map[string]any, depth int) bool {
	obj, req := scanRequires(node, p, root, depth)
	return obj && req
}

func scanRequires(node any, p string, root map[string]any, depth int) (obj, req bool) {
	s, ok := node.(map[string]any)
	if !ok || depth > 8 {
		return false, false
	}
	if d := deref(s, root); d != nil {
		return scanRequires(d, p, root, depth+1)
	}
	if t, ok := s["type"].(string); ok && t == "object" {
		obj = true
	}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if x == p {
				req = true
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, a := range all {
			o, r := scanRequires(a, p, root, depth+1)
			obj = obj || o
			req = req || r
		}
	}
	if one, ok := s["oneOf"].([]any); ok && len(one) > 0 {
		allObj, allReq := true, true
		for _, b := range one {
			o, r := scanRequires(b, p, root, depth+1)
			allObj = allObj && o
			allReq = allReq && r
		}
		obj = obj || allObj
		req = req || allReq
	}
	return obj, req
}

// schemaEnum returns the string enum of definitions[def].properties[prop] in the embedded
// schema, in schema order.
func schemaEnum(def, prop string) []string {
	var doc struct {
		Definitions map[string]struct {
			Properties map[string]struct {
				Enum []json.RawMessage `json:"enum"`
			} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal([]byte(schemaJSON), &doc); err != nil {
		return nil
	}
	var out []string
	for _, e := range doc.Definitions[def].Properties[prop].Enum {
		var s string
		if json.Unmarshal(e, &s) == nil {
			out = append(out, s)
		}
	}
	return out
}
