package editor

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/cutroom/cutroom/editor/internal/jsontape"
)

// The tape reader reads a decoded document (see jsontape.Decode) into the wire types that
// build turns into a State. The wire types are its table: each exported field is read from
// the member its json tag names (the fields of an embedded struct as the embedding
// struct's, as encoding/json reads them), in the way its Go type calls for (see
// fieldKind), so the view reads a new member once a wire type has a field for it. Fields
// tagged tape:"-" are read by their struct's readTape method instead (see tapeHook).
//
// It is lenient: a member of the wrong JSON type reads as absent (zero), so that a state
// with schema errors still yields a view for the semantic rules. A map entry that is not an
// object becomes nil, which build turns into a placeholder the rules skip. Each object is
// read in one pass over its members (its names are unique, see dedupe); members the view
// does not use are skipped.

// fieldKind is how the tape reader reads a wire field, by its Go type.
type fieldKind uint8

const (
	kindNumber    fieldKind = iota // float64: a number (see parseNumber), else 0
	kindNumberPtr                  // *float64: nil unless a number
	kindString                     // string: a string, else ""
	kindStringPtr                  // *string: nil unless a string
	kindBool                       // bool: true for true
	kindStrings                    // []string: an array, "" for its other elements
	kindParams                     // Params: an object's primitive members as text
	kindRaw                        // json.RawMessage: the value re-encoded, nil for null
	kindAnimated                   // *wireAnimated: an object, read once per tape node
	kindStruct                     // a struct: an object's members (none for other values)
	kindStructPtr                  // a pointer to a struct: nil unless an object
	kindStructs                    // a slice of structs: one per element, nil when empty
	kindNumbers                    // map[string]float64: an object's number members
	kindObjects                    // map[string]*struct: one per member, nil for non-objects
)

// fieldPlan says where a member goes and how it is read.
type fieldPlan struct {
	name  string
	index []int // of the field in the struct (two for a field of an embedded struct)
	kind  fieldKind
	elem  *structPlan // the struct read by the struct kinds and kindAnimated
}

// structPlan is the table of one wire struct type: its fields by member name.
type structPlan struct {
	typ    reflect.Type
	fields map[string]*fieldPlan // while it is built; the reader uses slots
	slots  []*fieldPlan          // the fields by nameHash, probed in turn (see lookup)
	hook   bool                  // *typ is a tapeHook
}

// nameHash is a cheap hash of a member name: the names of a wire type mostly differ in
// length or in their first or last byte.
func nameHash(name string) int {
	return len(name)*131 + int(name[0])*31 + int(name[len(name)-1])
}

// lookup returns the field the member name is read into, or nil. It does what
// fields[name] does in half the time: looking names up is the reader's most frequent
// step (a quarter of its time with the map).
func (p *structPlan) lookup(name string) *fieldPlan {
	if name == "" {
		return nil
	}
	mask := len(p.slots) - 1
	for i := nameHash(name) & mask; ; i = (i + 1) & mask {
		if f := p.slots[i]; f == nil || f.name == name {
			return f
		}
	}
}

// tapeHook is implemented by wire types with a member the table does not read: readTape
// is called with the object v after its other members are read.
type tapeHook interface {
	readTape(r *tapeReader, v uint32)
}

// tapePlans are the tables of a state and of an item (read by wireState.readTape), built
// once from the wire types' definitions; an unsupported field type panics on first use,
// which every test of Parse sees.
var tapePlans = sync.OnceValue(func() (plans struct{ state, item *structPlan }) {
	byType := map[reflect.Type]*structPlan{}
	plans.state = planOf(reflect.TypeFor[wireState](), byType)
	plans.item = planOf(reflect.TypeFor[wireItem](), byType)
	return plans
})

func planOf(t reflect.Type, plans map[reflect.Type]*structPlan) *structPlan {
	if p := plans[t]; p != nil {
		return p
	}
	p := &structPlan{typ: t, fields: map[string]*fieldPlan{}, hook: reflect.PointerTo(t).Implements(reflect.TypeFor[tapeHook]())}
	plans[t] = p
	p.addFields(t, nil, plans)
	n := 16 // a power of two, at most a quarter full
	for n < 4*len(p.fields) {
		n *= 2
	}
	p.slots = make([]*fieldPlan, n)
	for name, f := range p.fields {
		i := nameHash(name) & (n - 1)
		for p.slots[i] != nil {
			i = (i + 1) & (n - 1)
		}
		p.slots[i] = f
	}
	return p
}

func (p *structPlan) addFields(t reflect.Type, prefix []int, plans map[reflect.Type]*structPlan) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		index := append(append([]int(nil), prefix...), i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			p.addFields(f.Type, index, plans)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" || f.Tag.Get("tape") == "-" {
			continue
		}
		if _, dup := p.fields[name]; dup {
			panic("editor: two fields of " + p.typ.String() + " read member " + name)
		}
		kind, elem := fieldKindOf(f.Type, plans)
		p.fields[name] = &fieldPlan{name: name, index: index, kind: kind, elem: elem}
	}
}

func fieldKindOf(t reflect.Type, plans map[reflect.Type]*structPlan) (fieldKind, *structPlan) {
	switch t {
	case reflect.TypeFor[json.RawMessage]():
		return kindRaw, nil
	case reflect.TypeFor[Params]():
		return kindParams, nil
	case reflect.TypeFor[*wireAnimated]():
		return kindAnimated, planOf(t.Elem(), plans)
	}
	switch k := t.Kind(); {
	case k == reflect.Float64:
		return kindNumber, nil
	case k == reflect.String:
		return kindString, nil
	case k == reflect.Bool:
		return kindBool, nil
	case k == reflect.Struct:
		return kindStruct, planOf(t, plans)
	case k == reflect.Pointer && t.Elem().Kind() == reflect.Float64:
		return kindNumberPtr, nil
	case k == reflect.Pointer && t.Elem().Kind() == reflect.String:
		return kindStringPtr, nil
	case k == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		return kindStructPtr, planOf(t.Elem(), plans)
	case k == reflect.Slice && t.Elem().Kind() == reflect.String:
		return kindStrings, nil
	case k == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		return kindStructs, planOf(t.Elem(), plans)
	case k == reflect.Map && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Float64:
		return kindNumbers, nil
	case k == reflect.Map && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Pointer && t.Elem().Elem().Kind() == reflect.Struct:
		return kindObjects, planOf(t.Elem().Elem(), plans)
	}
	panic("editor: the tape reader cannot read a " + t.String())
}

// tapeReader reads one tape. Identical short objects share a node, so it reads each
// shared animated number once (the wire values are only read by build).
type tapeReader struct {
	t       *jsontape.Tape
	anims   map[uint32]*wireAnimated
	builder *itemBuilder
	scratch wireItem // the item being read (items are built as they are read)
}

// wireFromTape reads a decoded editor state object into wire types.
func wireFromTape(t *jsontape.Tape) *wireState {
	r := &tapeReader{t: t, anims: map[uint32]*wireAnimated{}, builder: newItemBuilder()}
	w := &wireState{}
	r.object(t.Root(), reflect.ValueOf(w).Elem(), tapePlans().state)
	return w
}

// readTape builds the items as they are read (see itemBuilder), into one slab, without a
// wire struct per item.
func (w *wireState) readTape(r *tapeReader, v uint32) {
	x, ok := r.t.Member(v, "items")
	if !ok || !r.isObj(x) {
		return
	}
	m := r.t.Members(x)
	w.built = make(map[string]*Item, len(m)/2)
	slab := make([]Item, len(m)/2)
	scratch, plan := reflect.ValueOf(&r.scratch).Elem(), tapePlans().item
	for j := 0; j < len(m); j += 2 {
		it, key := &slab[j/2], r.t.Text(m[j])
		if r.isObj(m[j+1]) {
			r.scratch = wireItem{}
			r.object(m[j+1], scratch, plan)
			r.builder.build(&r.scratch, it)
		} else {
			*it = placeholderItem(key)
		}
		w.built[key] = it
	}
}

// readTape reads resourceJson, which the view keeps for lottie assets only (re-encoding
// another asset's would be wasted).
func (w *wireAsset) readTape(r *tapeReader, v uint32) {
	if w.Type != "lottie" {
		return
	}
	if x, ok := r.t.Member(v, "resourceJson"); ok {
		w.ResourceJSON = r.raw(x)
	}
}

// object reads the members of the object v into dst (an addressable struct of p's type);
// it reads nothing from other kinds of values.
func (r *tapeReader) object(v uint32, dst reflect.Value, p *structPlan) {
	m := r.t.Members(v)
	for j := 0; j < len(m); j += 2 {
		if f := p.lookup(r.t.Text(m[j])); f != nil {
			r.field(m[j+1], dst.FieldByIndex(f.index), f)
		}
	}
	if p.hook && r.isObj(v) {
		dst.Addr().Interface().(tapeHook).readTape(r, v)
	}
}

// newObject reads the object v into a new struct of p's type and returns its pointer.
func (r *tapeReader) newObject(v uint32, p *structPlan) reflect.Value {
	ptr := reflect.New(p.typ)
	r.object(v, ptr.Elem(), p)
	return ptr
}

// field reads the value x into dst (a zero field) as p says.
func (r *tapeReader) field(x uint32, dst reflect.Value, p *fieldPlan) {
	switch p.kind {
	case kindNumber:
		dst.SetFloat(r.fnum(x))
	case kindNumberPtr:
		if f, ok := r.num(x); ok {
			dst.Set(reflect.ValueOf(&f))
		}
	case kindString:
		dst.SetString(r.str(x))
	case kindStringPtr:
		if r.kind(x) == jsontape.String {
			s := r.t.Text(x)
			dst.Set(reflect.ValueOf(&s))
		}
	case kindBool:
		dst.SetBool(r.kind(x) == jsontape.True)
	case kindStrings:
		dst.Set(reflect.ValueOf(r.strings(x)))
	case kindParams:
		dst.Set(reflect.ValueOf(r.params(x)))
	case kindRaw:
		dst.SetBytes(r.raw(x))
	case kindAnimated:
		if w := r.animated(x, p.elem); w != nil {
			dst.Set(reflect.ValueOf(w))
		}
	case kindStruct:
		r.object(x, dst, p.elem)
	case kindStructPtr:
		if r.isObj(x) {
			dst.Set(r.newObject(x, p.elem))
		}
	case kindStructs:
		if es := r.t.Elems(x); len(es) > 0 {
			s := reflect.MakeSlice(dst.Type(), len(es), len(es))
			for i, e := range es {
				r.object(e, s.Index(i), p.elem)
			}
			dst.Set(s)
		}
	case kindNumbers:
		if r.isObj(x) {
			m := r.t.Members(x)
			vals := make(map[string]float64, len(m)/2)
			for j := 0; j < len(m); j += 2 {
				if f, ok := r.num(m[j+1]); ok {
					vals[r.t.Text(m[j])] = f
				}
			}
			dst.Set(reflect.ValueOf(vals))
		}
	case kindObjects:
		if r.isObj(x) {
			m := r.t.Members(x)
			objs := reflect.MakeMapWithSize(dst.Type(), len(m)/2)
			key := reflect.New(dst.Type().Key()).Elem() // set in place: no boxing per entry
			for j := 0; j < len(m); j += 2 {
				obj := reflect.Zero(dst.Type().Elem())
				if r.isObj(m[j+1]) {
					obj = r.newObject(m[j+1], p.elem)
				}
				key.SetString(r.t.Text(m[j]))
				objs.SetMapIndex(key, obj)
			}
			dst.Set(objs)
		}
	}
}

func (r *tapeReader) animated(v uint32, p *structPlan) *wireAnimated {
	if !r.isObj(v) {
		return nil
	}
	if w, ok := r.anims[v]; ok {
		return w
	}
	w := &wireAnimated{}
	r.object(v, reflect.ValueOf(w).Elem(), p)
	r.anims[v] = w
	return w
}

func (r *tapeReader) kind(v uint32) uint8 { return r.t.Kind(v) }

func (r *tapeReader) isObj(v uint32) bool { return r.kind(v) == jsontape.Object }

// num returns a number member's value (like strconv.ParseFloat on its literal, with
// ±Inf for literals beyond the float64 range) and false for other kinds.
func (r *tapeReader) num(v uint32) (float64, bool) {
	if r.kind(v) != jsontape.Number {
		return 0, false
	}
	return parseNumber(r.t.Text(v))
}

// parseNumber parses a JSON number literal; short integers take a fast path that gives
// the same result as strconv.ParseFloat.
func parseNumber(lit string) (float64, bool) {
	if len(lit) > 0 && len(lit) <= 15 {
		neg := lit[0] == '-'
		digits := lit
		if neg {
			digits = lit[1:]
		}
		var n int64
		ok := len(digits) > 0
		for i := 0; i < len(digits) && ok; i++ {
			c := digits[i]
			ok = c >= '0' && c <= '9'
			n = n*10 + int64(c-'0')
		}
		if ok { // below 10^15, so exact in a float64
			f := float64(n)
			if neg {
				f = -f
			}
			return f, true
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func (r *tapeReader) fnum(v uint32) float64 {
	f, _ := r.num(v)
	return f
}

func (r *tapeReader) str(v uint32) string {
	if r.kind(v) != jsontape.String {
		return ""
	}
	return r.t.Text(v)
}

func (r *tapeReader) strings(v uint32) []string {
	a := r.t.Elems(v)
	if a == nil {
		return nil
	}
	out := make([]string, len(a))
	for i, x := range a {
		out[i] = r.str(x)
	}
	return out
}

// raw re-encodes a member that the view keeps as raw JSON (lottie documents); nil for
// null.
func (r *tapeReader) raw(v uint32) json.RawMessage {
	if r.kind(v) == jsontape.Null {
		return nil
	}
	b, err := json.Marshal(r.t.Tree(v))
	if err != nil {
		return nil
	}
	return b
}

func (r *tapeReader) params(v uint32) Params {
	if !r.isObj(v) {
		return nil
	}
	m := r.t.Members(v)
	p := make(Params, len(m)/2)
	for j := 0; j < len(m); j += 2 {
		key, x := r.t.Text(m[j]), m[j+1]
		switch r.kind(x) {
		case jsontape.String, jsontape.Number:
			p[key] = r.t.Text(x)
		case jsontape.True:
			p[key] = "true"
		case jsontape.False:
			p[key] = "false"
		case jsontape.Null:
			p[key] = "null"
		}
	}
	return p
}
