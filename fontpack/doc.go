// Package fontpack installs web font families into a data dir's fonts directory, which the
// server's font library reads (<data-dir>/fonts), and carries them to machines without a
// connection: the logic of `cutroom fonts add|pack|import|list`.
//
// Source. The catalogue is fontsource's packages on the npm registry (@fontsource/<id>):
// every Google Fonts family, each as WOFF2 and WOFF files cut into unicode-range subsets,
// with its licence file and metadata.json (family name, subsets, licence), one package per
// family, versioned and reachable wherever npm is. The registry's abbreviated package
// metadata (the document npm's installer reads) gives the latest version's tarball URL and
// its SHA-512 integrity hash; the tarball is downloaded to a file, checked against the
// hash before it is read, then unpacked within bounds. The registry's URL is configurable
// (Catalogue.Registry, --registry), which is how the tests play it on loopback.
//
// Names. A family name maps to its fontsource id as fontsource makes them (lower case,
// runs of other characters one dash: "TikTok Sans" -> tiktok-sans); the package's
// metadata.json must then name the same family without regard to case (or the id was
// given), else the family is "not in the catalogue" (ErrNotInCatalogue), as is a package
// the registry does not have. The id names the family's directory.
//
// What is installed. Only the WOFF2 files: every fontsource family has them, they are what
// a browser loading the package's CSS fetches, and the WOFF copies add nothing. Static
// files per weight, not fontsource's variable packages: the static files are the weights
// the editor's font picker offers and their @font-face rules are what a browser draws
// with. A family without a licence file is not installed. Each family directory holds its
// font files, the licence file and manifest.json (Manifest: family, version, source with
// tarball and integrity, the licence file and every font file with its weight, style,
// subset, unicode-range, size and SHA-256). Verify checks a directory against its manifest
// and that it holds nothing else.
//
// The manifest is also what the server's font library (compositor/text) reads of an
// installed family: it describes each listed file as its @font-face rule does (the
// manifest's family, the file's weight, style and unicode-range, the rules' order), as a
// browser loading the package's CSS sees them; a static web font file's own name table may
// name another family ("TikTok Sans Light"). So the manifest's fields are a contract
// between the two packages.
//
// Selection. All weights, styles and subsets by default. Selection narrows it as a
// browser resolves font-weight and font-style against the faces a family has (CSS Fonts 4
// font matching: style first, italic falling back to oblique then normal; then the weight
// order of §5.2), so asking for a weight or style the family lacks installs the face a
// browser would draw instead; subsets must be the package's own. By default the subsets
// are those of the package's default CSS (unicode.json's keys): a CJK package also holds a
// whole-script file per weight ("japanese") that only its own CSS loads and that would
// cover what its 120 unicode-range slices cover; --subsets japanese installs that file
// instead. The numbered slices belong to the subsets that have no files of their own.
// Measured against the real registry (2026-11, fontsource 5.3.0, load average 20-30 on the
// shared 2-core VM): TikTok Sans 42 files, 611 KiB; Inter 126 files, 1.7 MiB; Noto Sans JP
// 1,116 files, 23.8 MiB in 4.4 s wall (with its 9 whole-script files, 1,125 files and
// 32.5 MiB, the three families in 8.9 s).
//
// Writes. Fetches and imports unpack into a private directory of the data dir
// (.fontpack-*, on the fonts directory's file system, outside the fonts directory so the
// font library never reads a partial family), every family is verified there, and only then
// is each renamed into place (an earlier install of the family is moved aside first, then
// removed): an add or import installs all of its families or none.
//
// Packs. A pack (Pack, Import) is a tar.gz: fontpack.json (format and the family ids),
// then <id>/manifest.json, <id>/<licence> and <id>/<font files>: the installed directories
// as they are, so a pack taken from a data dir and one fetched for it are the same bytes
// apart from gzip. Import treats the file as hostile: at most Limits.MaxDownloadBytes of
// it, at most MaxUnpackedBytes decompressed (counted as it is read, so a small file that
// inflates to much stops early) and MaxFiles entries; only regular files named <id>/<file>
// with plain names (no separators, no leading dot, no "..") and directories <id>/; links,
// devices and duplicates refused; each file at most MaxFileBytes, created with O_EXCL in
// a directory of its own making; then every family verified against its manifest (sizes,
// SHA-256, font signatures, nothing unlisted) and the index, before anything is installed.
// The hashes catch corruption in transit, not tampering: a pack is as trusted as the
// operator who carries it.
//
// Errors. The package never reaches an API client: errors are operator messages naming
// the family or the entry at fault, with sentinels ErrNotInCatalogue, ErrBadPack and
// ErrTooLarge.
package fontpack
