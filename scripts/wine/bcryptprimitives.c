// bcryptprimitives.dll for Wine 8 (Debian 12's), which lacks it: Go's runtime (go.mod's
// Go) loads it at start for ProcessPrng and stops without it ("bcryptprimitives.dll not
// found"). Windows 10 and later ship it, as do later Wine releases. cmd/cutroom's
// TestWindowsBuildUnderWine builds this into its Wine prefix only, when Wine has none; it
// is never part of the Windows build or its zip.
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
