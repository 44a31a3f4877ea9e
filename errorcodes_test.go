package cutroom_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestErrorCodesDocumented finds every API error code in the source (each is made by
// apierr.Define with its kind, next to the rule that raises it) and checks that the name is
// a string literal, that no name is defined with two kinds, and that every name appears in
// a table of the user docs (README.md and docs/*.md). A code the server can send therefore always has a kind and is
// always documented.
func TestErrorCodesDocumented(t *testing.T) {
	fset := token.NewFileSet()
	kinds := map[string]string{} // code name -> kind
	where := map[string]string{} // code name -> first position
	for _, path := range repoFiles(t, ".go", "testdata", "bench") {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isDefine(call.Fun, f.Name.Name) {
				return true
			}
			pos := fset.Position(call.Pos()).String()
			if len(call.Args) != 2 {
				t.Errorf("%s: apierr.Define takes a kind and a name", pos)
				return true
			}
			lit, ok := call.Args[1].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: the code's name must be a string literal, so this test can see it", pos)
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			kind := exprString(call.Args[0])
			if k, ok := kinds[name]; ok && k != kind {
				t.Errorf("%s: %s defined as %s, and as %s at %s", pos, name, kind, k, where[name])
			}
			if _, ok := kinds[name]; !ok {
				kinds[name], where[name] = kind, pos
			}
			return true
		})
	}
	if len(kinds) == 0 {
		t.Fatal("no apierr.Define in the source")
	}
	documented := map[string]bool{}
	code := regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	for _, doc := range userDocs(t) {
		for _, line := range strings.Split(doc, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "|") {
				for _, m := range code.FindAllStringSubmatch(line, -1) {
					documented[m[1]] = true
				}
			}
		}
	}
	for name := range kinds {
		if !documented[name] {
			t.Errorf("%s (%s, %s) is in no table of README.md or docs/*.md", name, kinds[name], where[name])
		}
	}
	described := describedCodes(t)
	for name := range kinds {
		// The router's own refusals answer paths and methods the description has not, and
		// CORS preflights (OPTIONS) are the browser's, not operations of the API.
		if !described[name] && name != "ROUTE_NOT_FOUND" && name != "METHOD_NOT_ALLOWED" && name != "CORS_ORIGIN_NOT_ALLOWED" {
			t.Errorf("%s (%s, %s) is answered by no operation of server/openapi.json", name, kinds[name], where[name])
		}
	}
}

// describedCodes returns the error codes the operations of server/openapi.json list.
func describedCodes(t *testing.T) map[string]bool {
	b, err := os.ReadFile(filepath.Join("server", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			ErrorCodes []string `json:"x-error-codes"`
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	codes := map[string]bool{}
	for _, item := range doc.Paths {
		for _, op := range item {
			for _, c := range op.ErrorCodes {
				codes[c] = true
			}
		}
	}
	return codes
}

// isDefine reports whether fun is apierr.Define (or Define inside package apierr).
func isDefine(fun ast.Expr, pkg string) bool {
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		id, ok := f.X.(*ast.Ident)
		return ok && id.Name == "apierr" && f.Sel.Name == "Define"
	case *ast.Ident:
		return pkg == "apierr" && f.Name == "Define"
	}
	return false
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return "?"
}
