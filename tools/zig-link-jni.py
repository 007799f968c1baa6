#!/usr/bin/env python3
"""Links RockCask's native library for macOS (and Windows) with Zig so that it exports only its JNI
entry points. (Windows: see windows_link; the rest of this note is about macOS.)

rustc tells the linker which symbols a cdylib exports (on Mach-O, -exported_symbols_list), but
Zig's Mach-O linker has no such option and cargo-zigbuild drops it, so every global symbol of
RocksDB, LZ4, Zstandard and the Rust crates would be exported, and could bind to another RocksDB
library's (RocksJava's) in the same JVM. This wrapper, which tools/build-natives.sh gives rustc as
the linker, marks every such symbol private extern (hidden) in copies of the objects and archives
rustc passes, keeping Java_* and JNI_On*, and then runs the linker cargo-zigbuild chose
(CARGO_TARGET_<TARGET>_LINKER) on the copies. A hidden symbol still links every object of the
library together; it is only left out of the library's exports.

The C++ runtime is Zig's libc++ and libc++abi, linked in (so the library needs no libc++ of the
Mac's), which Zig adds to the link itself for -lc++: their operator new and delete would be
exported as weak definitions, which dyld coalesces across every image loaded, so they are hidden
too. The wrapper asks Zig which archives it would add (a failing probe link with
ZIG_VERBOSE_LINK=1 prints its command) and passes hidden copies in place of -lc++.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

MH_MAGIC_64 = 0xFEEDFACF
LC_SYMTAB = 0x2
N_STAB = 0xE0
N_PEXT = 0x10
N_TYPE = 0x0E
N_EXT = 0x01
N_UNDF = 0x0
# The symbol names (Mach-O prefixes C names with '_') the JVM looks up in the library.
KEPT_PREFIXES = (b"_Java_", b"_JNI_OnLoad", b"_JNI_OnUnload")


def hide_in_object(data, base, end, where):
    """Marks the defined external symbols of the Mach-O object at data[base:end] private extern."""
    magic, _cpu, _sub, _filetype, ncmds, _size, _flags, _reserved = struct.unpack_from("<IiiIIIII", data, base)
    if magic != MH_MAGIC_64:
        return 0
    offset = base + 32
    hidden = 0
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, offset)
        if cmd == LC_SYMTAB:
            symoff, nsyms, stroff, _strsize = struct.unpack_from("<IIII", data, offset + 8)
            for i in range(nsyms):
                entry = base + symoff + 16 * i
                strx, ntype = struct.unpack_from("<IB", data, entry)
                if ntype & N_STAB or not ntype & N_EXT or ntype & N_PEXT or ntype & N_TYPE == N_UNDF:
                    continue
                name_at = base + stroff + strx
                name = bytes(data[name_at:data.index(b"\0", name_at)])
                if not name.startswith(KEPT_PREFIXES):
                    data[entry + 4] = ntype | N_PEXT
                    hidden += 1
        offset += cmdsize
        if offset > end:
            sys.exit(f"zig-link-jni: {where}: load commands run past the object's end")
    return hidden


def hide_in_file(path):
    """Patches a Mach-O object, or every Mach-O member of an archive (.a, .rlib), in place."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    hidden = 0
    if data.startswith(b"!<arch>\n"):
        offset = 8
        while offset + 60 <= len(data):
            header = data[offset:offset + 60]
            name = header[:16].decode("ascii", "replace").strip()
            size = int(header[48:58].decode("ascii").strip())
            start = offset + 60
            if name.startswith("#1/"):
                # A BSD archive's long member name comes first in the member's data.
                start += int(name[3:])
            end = offset + 60 + size
            if end - start >= 32 and struct.unpack_from("<I", data, start)[0] == MH_MAGIC_64:
                hidden += hide_in_object(data, start, end, f"{path} member {name}")
            offset = end + (end & 1)
    elif len(data) >= 32 and struct.unpack_from("<I", data, 0)[0] == MH_MAGIC_64:
        hidden = hide_in_object(data, 0, len(data), path)
    else:
        return 0
    with open(path, "wb") as f:
        f.write(data)
    return hidden


def real_linker():
    ours = os.path.realpath(__file__)
    linkers = {k: v for k, v in os.environ.items()
               if k.startswith("CARGO_TARGET_") and k.endswith("_LINKER") and os.path.realpath(v) != ours}
    if len(linkers) != 1:
        sys.exit(f"zig-link-jni: expected the one linker cargo-zigbuild sets (CARGO_TARGET_<TARGET>_LINKER), found {linkers or 'none'}")
    return next(iter(linkers.values()))


def is_input(arg):
    return arg.endswith((".o", ".a", ".rlib")) and not arg.startswith("-") and os.path.isfile(arg)


def zig_cpp_runtime(linker, args, work):
    """The libc++ and libc++abi archives Zig links for -lc++ with these arguments."""
    smallest = min((a for a in args if a.endswith(".o") and is_input(a)), key=os.path.getsize, default=None)
    if smallest is None:
        sys.exit("zig-link-jni: no object among the linker's inputs to probe Zig's C++ runtime with")
    probe = []
    skip = False
    for arg in args:
        if skip:
            probe.append(os.path.join(work, "probe.dylib"))
            skip = False
        elif arg == "-o":
            probe.append(arg)
            skip = True
        elif not is_input(arg):
            probe.append(arg)
    # The probe's symbols are undefined, so the link fails; Zig prints the command first.
    result = subprocess.run([linker, smallest] + probe, env=dict(os.environ, ZIG_VERBOSE_LINK="1"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    words = (result.stdout + " " + result.stderr).split()
    archives = [w for w in words if w.endswith(("/libc++.a", "/libc++abi.a")) and os.path.isfile(w)]
    if sorted(os.path.basename(a) for a in archives) != ["libc++.a", "libc++abi.a"]:
        sys.exit(f"zig-link-jni: Zig's probe link named no libc++.a and libc++abi.a: {result.stderr[:2000]}")
    return archives


def windows_link(linker, args):
    """Links a Windows DLL: rustc names the exports in a module-definition file, passed as
    -Wl,<file>.def, which cargo-zigbuild's wrapper drops; without it the MinGW linker exports
    every global symbol (21,861 of RocksDB, libc++ and Rust). Zig honours the file given as an
    input, so it is passed as one."""
    linked = [arg[len("-Wl,"):] if arg.startswith("-Wl,") and arg.endswith(".def") else arg for arg in args]
    if linked == list(args):
        sys.exit("zig-link-jni: no -Wl,<exports>.def among the linker's arguments: is this rustc's DLL link?")
    return subprocess.call([linker] + linked)


def main(args):
    linker = real_linker()
    if any(arg.endswith(".dll") for arg in args):
        return windows_link(linker, args)
    work = tempfile.mkdtemp(prefix="rockcask-link-")
    try:
        linked = []
        hidden = 0
        for i, arg in enumerate(args):
            if is_input(arg):
                copy = os.path.join(work, f"{i}-{os.path.basename(arg)}")
                shutil.copyfile(arg, copy)
                hidden += hide_in_file(copy)
                linked.append(copy)
            elif arg == "-lc++":
                for archive in zig_cpp_runtime(linker, args, work):
                    copy = os.path.join(work, f"{i}-{os.path.basename(archive)}")
                    shutil.copyfile(archive, copy)
                    hidden += hide_in_file(copy)
                    linked.append(copy)
            else:
                linked.append(arg)
        if hidden == 0:
            sys.exit("zig-link-jni: no symbol to hide among the linker's inputs: is this a Mach-O link?")
        # The library's own name for whatever links against it: rustc gives none, so the linker
        # would record the path it was built at (a path on the build machine, meaningless on a
        # Mac). The JVM loads it by its full path, which this name does not affect.
        output = args[args.index("-o") + 1] if "-o" in args else "librockcask.dylib"
        linked.append("-Wl,-install_name,@rpath/" + os.path.basename(output))
        return subprocess.call([linker] + linked)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
