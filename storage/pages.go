package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
)

// The page check of a backup (CheckFile), before bbolt reads the file. bbolt trusts its
// pages: a branch page that names itself as its child sends its cursor, and its own
// consistency check, into a loop that grows until the process is killed; a page number
// past the file's end faults. So the tree is walked here first, reading the file (not
// mapping it), from the meta page bbolt would choose: every page it reaches is inside the
// file, reached once, of the type its parent says, and holds its elements; every bucket
// (inline ones too) is sound; the free list's page ids are pages of the file. Only then
// does bbolt open it. The format is bbolt's version 2 (go.etcd.io/bbolt internal/common,
// native byte order), which bbolt has kept since its first release.

// bbolt's on-disk constants.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	pageHeaderSize   = 16 // id u64, flags u16, count u16, overflow u32
	elementSize      = 16 // branch: pos u32, ksize u32, pgid u64; leaf: flags u32, pos u32, ksize u32, vsize u32
	bucketHeaderSize = 16 // root pgid u64, sequence u64
	metaSize         = 64 // magic, version, page size, flags u32; root bucket; freelist, pgid, txid, checksum u64
	branchPage       = 0x01
	leafPage         = 0x02
	freelistPage     = 0x10
	bucketLeafFlag   = 0x01
	noFreelist       = ^uint64(0)
	// maxDepth bounds a tree's height and the nesting of buckets: a B+tree of 4 KiB pages
	// holds more than a file can long before 32 levels.
	maxDepth = 32
)

var ne = binary.NativeEndian

// boltMeta is the part of a meta page the check needs.
type boltMeta struct {
	pageSize int64
	root     uint64 // the root bucket's page
	freelist uint64
	pgid     uint64 // pages the database has (its high-water mark)
	txid     uint64
}

// readMeta reads the meta page at off; ok is false when it does not validate as bbolt
// validates it (magic, version, checksum).
func readMeta(f io.ReaderAt, off int64) (m boltMeta, ok bool) {
	var b [pageHeaderSize + metaSize]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return m, false
	}
	meta := b[pageHeaderSize:]
	h := fnv.New64a()
	h.Write(meta[:56])
	if ne.Uint32(meta[0:]) != boltMagic || ne.Uint32(meta[4:]) != boltVersion || ne.Uint64(meta[56:]) != h.Sum64() {
		return m, false
	}
	return boltMeta{pageSize: int64(ne.Uint32(meta[8:])), root: ne.Uint64(meta[16:]), freelist: ne.Uint64(meta[32:]),
		pgid: ne.Uint64(meta[40:]), txid: ne.Uint64(meta[48:])}, true
}

// chooseMeta returns the meta page bbolt opens the file with: of the two, the valid one
// with the higher transaction id. The second is found as bbolt finds it when the first is
// damaged, at 1 KiB, 2 KiB, ... 16 MiB.
func chooseMeta(f io.ReaderAt) (boltMeta, error) {
	m0, ok0 := readMeta(f, 0)
	var m1 boltMeta
	ok1 := false
	if ok0 {
		m1, ok1 = readMeta(f, m0.pageSize)
	} else {
		for size := int64(1024); size <= 16<<20 && !ok1; size *= 2 {
			m1, ok1 = readMeta(f, size)
		}
	}
	switch {
	case ok0 && ok1 && m1.txid > m0.txid, !ok0 && ok1:
		return m1, nil
	case ok0:
		return m0, nil
	}
	return boltMeta{}, errors.New("neither meta page is valid: not a bbolt database, or both are damaged")
}

// pageTree walks a file's pages.
type pageTree struct {
	f        io.ReaderAt
	pageSize int64
	pages    uint64
	seen     []uint64 // a bit per page
}

// checkPages checks the page tree of the bbolt file at path (see above) and returns the
// size its meta page gives it (pages x page size).
func checkPages(path string, fileSize int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	m, err := chooseMeta(f)
	if err != nil {
		return 0, err
	}
	if m.pageSize < 512 || m.pageSize > 16<<20 || m.pageSize&(m.pageSize-1) != 0 {
		return 0, fmt.Errorf("the meta page gives a page size of %d bytes", m.pageSize)
	}
	if m.pgid < 3 || m.pgid > uint64(math.MaxInt64/m.pageSize) {
		return 0, fmt.Errorf("the meta page counts %d pages", m.pgid)
	}
	size := int64(m.pgid) * m.pageSize
	if size > fileSize {
		return size, fmt.Errorf("truncated: %d of %d bytes", fileSize, size)
	}
	t := &pageTree{f: f, pageSize: m.pageSize, pages: m.pgid, seen: make([]uint64, (m.pgid+63)/64)}
	if err := t.bucket("the root bucket", m.root, 0); err != nil {
		return size, err
	}
	if m.freelist != noFreelist {
		if err := t.freelist(m.freelist); err != nil {
			return size, err
		}
	}
	return size, nil
}

// page reads page id with its overflow pages, marking them seen, and checks that it is of
// type want (a set of flags).
func (t *pageTree) page(id uint64, want uint16, where string) ([]byte, error) {
	if id < 2 || id >= t.pages {
		return nil, fmt.Errorf("%s: page %d is not a page of the file (2..%d)", where, id, t.pages-1)
	}
	var h [pageHeaderSize]byte
	if _, err := t.f.ReadAt(h[:], int64(id)*t.pageSize); err != nil {
		return nil, fmt.Errorf("%s: page %d: %w", where, id, err)
	}
	flags, overflow := ne.Uint16(h[8:]), uint64(ne.Uint32(h[12:]))
	if flags == 0 || flags&(flags-1) != 0 || flags&want == 0 { // one type, one of those wanted
		return nil, fmt.Errorf("%s: page %d has type %#x where a page of type %#x belongs", where, id, flags, want)
	}
	if got := ne.Uint64(h[0:]); got != id {
		return nil, fmt.Errorf("%s: page %d says it is page %d", where, id, got)
	}
	if id+overflow >= t.pages {
		return nil, fmt.Errorf("%s: page %d runs %d pages past the file's end", where, id, id+overflow-t.pages+1)
	}
	for p := id; p <= id+overflow; p++ {
		if t.seen[p/64]&(1<<(p%64)) != 0 {
			return nil, fmt.Errorf("%s: page %d is reached twice", where, p)
		}
		t.seen[p/64] |= 1 << (p % 64)
	}
	data := make([]byte, int64(overflow+1)*t.pageSize)
	if _, err := t.f.ReadAt(data, int64(id)*t.pageSize); err != nil {
		return nil, fmt.Errorf("%s: page %d: %w", where, id, err)
	}
	return data, nil
}

// bucket checks the tree of a bucket whose root is page root.
func (t *pageTree) bucket(where string, root uint64, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: buckets nested more than %d deep", where, maxDepth)
	}
	return t.node(where, root, leafPage|branchPage, 0, depth)
}

// node checks page id of a bucket's tree, height levels below its root, and what is
// below it.
func (t *pageTree) node(where string, id uint64, want uint16, height, depth int) error {
	if height > maxDepth {
		return fmt.Errorf("%s: a tree more than %d pages high", where, maxDepth)
	}
	data, err := t.page(id, want, where)
	if err != nil {
		return err
	}
	return t.elements(where, data, id, height, depth)
}

// elements checks the elements of a branch or leaf page data (id 0: an inline bucket's).
func (t *pageTree) elements(where string, data []byte, id uint64, height, depth int) error {
	flags, count := ne.Uint16(data[8:]), int64(ne.Uint16(data[10:]))
	if pageHeaderSize+count*elementSize > int64(len(data)) {
		return fmt.Errorf("%s: page %d holds %d elements, more than fit", where, id, count)
	}
	if flags == branchPage && count == 0 {
		return fmt.Errorf("%s: branch page %d is empty", where, id)
	}
	for i := range count {
		at := pageHeaderSize + i*elementSize
		e := data[at : at+elementSize]
		if flags == branchPage {
			pos, ksize := int64(ne.Uint32(e[0:])), int64(ne.Uint32(e[4:]))
			if at+pos+ksize > int64(len(data)) {
				return fmt.Errorf("%s: page %d: element %d lies past the page", where, id, i)
			}
			if err := t.node(where, ne.Uint64(e[8:]), leafPage|branchPage, height+1, depth); err != nil {
				return err
			}
			continue
		}
		eflags, pos, ksize, vsize := ne.Uint32(e[0:]), int64(ne.Uint32(e[4:])), int64(ne.Uint32(e[8:])), int64(ne.Uint32(e[12:]))
		if at+pos+ksize+vsize > int64(len(data)) {
			return fmt.Errorf("%s: page %d: element %d lies past the page", where, id, i)
		}
		if eflags&bucketLeafFlag == 0 {
			continue
		}
		key := data[at+pos : at+pos+ksize]
		v := data[at+pos+ksize : at+pos+ksize+vsize]
		inner := where + "/" + keyString(key)
		if depth == 0 {
			inner = "bucket " + keyString(key)
		}
		if err := t.bucketValue(inner, v, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// bucketValue checks a nested bucket from its value in its parent: a header, then its root
// page, or its inline page.
func (t *pageTree) bucketValue(where string, v []byte, depth int) error {
	if len(v) < bucketHeaderSize {
		return fmt.Errorf("%s: its header has %d bytes, not %d", where, len(v), bucketHeaderSize)
	}
	if root := ne.Uint64(v); root != 0 {
		return t.bucket(where, root, depth)
	}
	inline := v[bucketHeaderSize:]
	if len(inline) < pageHeaderSize || ne.Uint16(inline[8:]) != leafPage {
		return fmt.Errorf("%s: its inline page is not a leaf page", where)
	}
	if depth > maxDepth {
		return fmt.Errorf("%s: buckets nested more than %d deep", where, maxDepth)
	}
	return t.elements(where, inline, 0, 0, depth)
}

// freelist checks the free list's page and the page ids it lists.
func (t *pageTree) freelist(id uint64) error {
	data, err := t.page(id, freelistPage, "the free list")
	if err != nil {
		return err
	}
	first, count := int64(0), int64(ne.Uint16(data[10:]))
	if count == 0xFFFF { // the count overflows into the first element
		first, count = 1, int64(ne.Uint64(data[pageHeaderSize:]))
	}
	if count < 0 || count > (int64(len(data))-pageHeaderSize)/8-first {
		return fmt.Errorf("the free list: page %d lists %d pages, more than fit", id, count)
	}
	for i := range count {
		if p := ne.Uint64(data[pageHeaderSize+(first+i)*8:]); p < 2 || p >= t.pages {
			return fmt.Errorf("the free list: page %d lists page %d, which is not a page of the file", id, p)
		}
	}
	return nil
}
