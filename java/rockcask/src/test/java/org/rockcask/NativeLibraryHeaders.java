package org.rockcask;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a shared library's headers say about it, read in Java so that the check runs on any JVM
 * without binutils: the format and machine it is built for, the symbols it exports (what another
 * library or dlsym can bind to; as C names, without Mach-O's leading underscore), the libraries it needs and, for Mach-O, the oldest macOS it
 * loads on. Reads 64-bit little-endian ELF (the dynamic symbol table and DT_NEEDED), 64-bit
 * Mach-O (the export trie dyld binds from, LC_LOAD_DYLIB, LC_BUILD_VERSION) and PE32+ (the
 * export directory's names and the import directory's DLLs).
 */
final class NativeLibraryHeaders {
    final String format;
    final String machine;
    final List<String> exported = new ArrayList<>();
    final List<String> needed = new ArrayList<>();
    /** Mach-O only: the minimum macOS version, {@code major.minor.patch}. */
    String minimumOs;
    /** Mach-O only: the library's own install name (LC_ID_DYLIB), recorded by whatever links against it. */
    String installName;

    private NativeLibraryHeaders(String format, String machine) {
        this.format = format;
        this.machine = machine;
    }

    static NativeLibraryHeaders read(Path library) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(library)).order(ByteOrder.LITTLE_ENDIAN);
        if (b.limit() >= 64 && b.getInt(0) == 0x464C457F) {
            return elf(b, library);
        }
        if (b.limit() >= 32 && b.getInt(0) == 0xFEEDFACF) {
            return machO(b, library);
        }
        if (b.limit() >= 64 && b.getShort(0) == 0x5A4D) { // "MZ"
            return pe(b, library);
        }
        throw new IOException(library + ": neither 64-bit ELF, 64-bit Mach-O nor PE");
    }

    private static NativeLibraryHeaders pe(ByteBuffer b, Path library) throws IOException {
        int coff = b.getInt(0x3C);
        if (b.getInt(coff) != 0x00004550) { // "PE\0\0"
            throw new IOException(library + ": no PE signature");
        }
        int machine = Short.toUnsignedInt(b.getShort(coff + 4));
        int sections = Short.toUnsignedInt(b.getShort(coff + 6));
        int optionalSize = Short.toUnsignedInt(b.getShort(coff + 20));
        int characteristics = Short.toUnsignedInt(b.getShort(coff + 22));
        int optional = coff + 24;
        if (b.getShort(optional) != 0x20B) {
            throw new IOException(library + ": not PE32+ (64-bit)");
        }
        NativeLibraryHeaders h = new NativeLibraryHeaders((characteristics & 0x2000) != 0 ? "PE DLL" : "PE image",
                machine == 0x8664 ? "x86_64" : machine == 0xAA64 ? "aarch64" : "PE machine " + Integer.toHexString(machine));
        int sectionTable = optional + optionalSize;
        // Data directories of PE32+ begin 112 bytes into the optional header: export, then import.
        int exportRva = b.getInt(optional + 112);
        int importRva = b.getInt(optional + 120);
        if (exportRva != 0) {
            int dir = fileOffset(b, sectionTable, sections, exportRva, library);
            int names = b.getInt(dir + 24);
            int nameTable = fileOffset(b, sectionTable, sections, b.getInt(dir + 32), library);
            for (int i = 0; i < names; i++) {
                h.exported.add(cString(b, fileOffset(b, sectionTable, sections, b.getInt(nameTable + 4 * i), library)));
            }
        }
        if (importRva != 0) {
            // Import descriptors, 20 bytes each, up to an all-zero one; the DLL's name at +12.
            for (int d = fileOffset(b, sectionTable, sections, importRva, library); b.getInt(d + 12) != 0; d += 20) {
                h.needed.add(cString(b, fileOffset(b, sectionTable, sections, b.getInt(d + 12), library)));
            }
        }
        return h;
    }

    /** Where the relative virtual address {@code rva} of a PE image lies in its file, by its section table. */
    private static int fileOffset(ByteBuffer b, int sectionTable, int sections, int rva, Path library) throws IOException {
        for (int s = 0; s < sections; s++) {
            int header = sectionTable + 40 * s;
            int size = Math.max(b.getInt(header + 8), b.getInt(header + 16));
            int address = b.getInt(header + 12);
            if (Integer.compareUnsigned(rva, address) >= 0 && Integer.compareUnsigned(rva - address, size) < 0) {
                return b.getInt(header + 20) + (rva - address);
            }
        }
        throw new IOException(library + ": address " + Integer.toHexString(rva) + " is in no section");
    }

    private static NativeLibraryHeaders elf(ByteBuffer b, Path library) throws IOException {
        if (b.get(4) != 2 || b.get(5) != 1) {
            throw new IOException(library + ": not a 64-bit little-endian ELF file");
        }
        int type = Short.toUnsignedInt(b.getShort(16));
        int machine = Short.toUnsignedInt(b.getShort(18));
        NativeLibraryHeaders h = new NativeLibraryHeaders(type == 3 ? "ELF shared object" : "ELF type " + type,
                machine == 62 ? "x86_64" : machine == 183 ? "aarch64" : "ELF machine " + machine);
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3A));
        int shnum = Short.toUnsignedInt(b.getShort(0x3C));
        for (int i = 0; i < shnum; i++) {
            int sh = (int) (shoff + (long) i * shentsize);
            int shType = b.getInt(sh + 4);
            int offset = (int) b.getLong(sh + 0x18);
            int size = (int) b.getLong(sh + 0x20);
            int link = b.getInt(sh + 0x28);
            int strtab = (int) b.getLong((int) (shoff + (long) link * shentsize) + 0x18);
            if (shType == 11) { // SHT_DYNSYM: Elf64_Sym, 24 bytes each
                for (int s = offset; s + 24 <= offset + size; s += 24) {
                    int info = b.get(s + 4) & 0xFF;
                    int visibility = b.get(s + 5) & 0x3;
                    int shndx = Short.toUnsignedInt(b.getShort(s + 6));
                    int bind = info >> 4;
                    // Defined, global or weak, default or protected visibility: bindable from outside.
                    if (shndx != 0 && (bind == 1 || bind == 2) && (visibility == 0 || visibility == 3)) {
                        h.exported.add(cString(b, strtab + b.getInt(s)));
                    }
                }
            } else if (shType == 6) { // SHT_DYNAMIC: Elf64_Dyn, 16 bytes each
                for (int d = offset; d + 16 <= offset + size; d += 16) {
                    if (b.getLong(d) == 1) { // DT_NEEDED
                        h.needed.add(cString(b, strtab + (int) b.getLong(d + 8)));
                    }
                }
            }
        }
        return h;
    }

    private static NativeLibraryHeaders machO(ByteBuffer b, Path library) throws IOException {
        int cpu = b.getInt(4);
        int fileType = b.getInt(12);
        NativeLibraryHeaders h = new NativeLibraryHeaders(fileType == 6 ? "Mach-O dylib" : "Mach-O file type " + fileType,
                cpu == 0x0100000C ? "aarch64" : cpu == 0x01000007 ? "x86_64" : "Mach-O CPU " + Integer.toHexString(cpu));
        int ncmds = b.getInt(16);
        int at = 32;
        int exportOffset = -1;
        int exportSize = 0;
        for (int i = 0; i < ncmds; i++) {
            int cmd = b.getInt(at);
            int cmdSize = b.getInt(at + 4);
            switch (cmd) {
                case 0xC: // LC_LOAD_DYLIB
                case 0x80000018: // LC_LOAD_WEAK_DYLIB
                case 0x8000001F: // LC_REEXPORT_DYLIB
                case 0x80000023: // LC_LOAD_UPWARD_DYLIB
                    h.needed.add(cString(b, at + b.getInt(at + 8)));
                    break;
                case 0xD: // LC_ID_DYLIB: the install name, as LC_LOAD_DYLIB's name
                    h.installName = cString(b, at + b.getInt(at + 8));
                    break;
                case 0x32: // LC_BUILD_VERSION: platform, minos, sdk, ntools
                    if (b.getInt(at + 8) == 1) { // PLATFORM_MACOS
                        h.minimumOs = version(b.getInt(at + 12));
                    }
                    break;
                case 0x24: // LC_VERSION_MIN_MACOSX: version, sdk
                    h.minimumOs = version(b.getInt(at + 8));
                    break;
                case 0x80000022: // LC_DYLD_INFO_ONLY: ..., export_off, export_size
                case 0x22: // LC_DYLD_INFO
                    exportOffset = b.getInt(at + 40);
                    exportSize = b.getInt(at + 44);
                    break;
                case 0x80000033: // LC_DYLD_EXPORTS_TRIE: dataoff, datasize
                    exportOffset = b.getInt(at + 8);
                    exportSize = b.getInt(at + 12);
                    break;
                default:
                    break;
            }
            at += cmdSize;
        }
        if (exportOffset < 0) {
            throw new IOException(library + ": no export trie (LC_DYLD_INFO_ONLY or LC_DYLD_EXPORTS_TRIE)");
        }
        if (exportSize > 0) {
            List<String> symbols = new ArrayList<>();
            trie(b, exportOffset, exportOffset + exportSize, 0, new StringBuilder(), symbols);
            // Mach-O prefixes C names with '_': listed as C names, as ELF's are.
            for (String symbol : symbols) {
                h.exported.add(symbol.startsWith("_") ? symbol.substring(1) : symbol);
            }
        }
        return h;
    }

    /** Walks dyld's export trie from the node at {@code start + node}: every terminal node is an exported name. */
    private static void trie(ByteBuffer b, int start, int end, int node, StringBuilder prefix, List<String> names) throws IOException {
        int[] at = {start + node};
        if (at[0] >= end) {
            throw new IOException("export trie node at " + node + " lies past the trie's end");
        }
        long terminalSize = uleb(b, at);
        if (terminalSize > 0) {
            names.add(prefix.toString());
        }
        at[0] += (int) terminalSize;
        int children = b.get(at[0]++) & 0xFF;
        for (int i = 0; i < children; i++) {
            String edge = cString(b, at[0]);
            at[0] += edge.getBytes(StandardCharsets.UTF_8).length + 1;
            int child = (int) uleb(b, at);
            int length = prefix.length();
            prefix.append(edge);
            trie(b, start, end, child, prefix, names);
            prefix.setLength(length);
        }
    }

    private static long uleb(ByteBuffer b, int[] at) {
        long value = 0;
        int shift = 0;
        int octet;
        do {
            octet = b.get(at[0]++) & 0xFF;
            value |= (long) (octet & 0x7F) << shift;
            shift += 7;
        } while ((octet & 0x80) != 0);
        return value;
    }

    private static String version(int packed) {
        return (packed >>> 16) + "." + ((packed >> 8) & 0xFF) + "." + (packed & 0xFF);
    }

    private static String cString(ByteBuffer b, int at) {
        int end = at;
        while (b.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - at];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = b.get(at + i);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
