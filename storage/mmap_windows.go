package storage

// initialMmapSize is the database's first memory map. On Windows bbolt sets the file's
// size to its map's (it cannot map past a file's end), and NTFS allocates that space, so
// the 1 GiB other systems map ahead would be a 1 GiB file on a desktop's disk: 64 MiB
// here. A backup's long read transaction then holds writers back only once the database
// outgrows that (a desktop app's database seldom does).
const initialMmapSize = 64 << 20
