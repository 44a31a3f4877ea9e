package editor

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is the published JSON Schema (draft-07) of editor state v1, byte for byte.
//
//go:embed editor-state.v1.schema.json
var schemaJSON string

const schemaURL = "https://api.indream.ai/schemas/editor-state.v1.schema.json"

// SchemaJSON returns a copy of the embedded JSON Schema of editor state v1.
func SchemaJSON() []byte { return []byte(schemaJSON) }

// compileSchema compiles the embedded schema after rewriting its discriminated oneOfs
// (see discriminate).
func compileSchema() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("editor: embedded schema: %w", err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("editor: embedded schema is not an object")
	}
	discriminate(root)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(schemaURL, root); err != nil {
		return nil, fmt.Errorf("editor: add schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("editor: compile schema: %w", err)
	}
	return sch, nil
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
