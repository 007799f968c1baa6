/*
 * bcryptprimitives.dll for test runs under Wine 8 (tools/setup-platforms.sh builds it into the
 * Windows Java runtime's bin directory, where Windows looks first for a library's dependencies).
 * Every Windows since 10 has this DLL, and Rust's standard library takes its random numbers
 * (hash-map seeds) from its ProcessPrng; Wine 8 has no such DLL, so RockCask's library would not
 * load there. Never shipped: a Windows machine has the real one.
 */
#include <windows.h>

/* RtlGenRandom, exported by advapi32 under this name. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
