//go:build !windows

package storage

// initialMmapSize is the database's first memory map (address space, not memory). bbolt
// writers wait for open read transactions only to grow the map, so a backup's long read
// transaction (Snapshot) holds no writer back until the database outgrows this. bbolt then
// grows the file in steps of its AllocSize (16 MiB; sparse) rather than doubling it.
const initialMmapSize = 1 << 30
