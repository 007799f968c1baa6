use super::*;

fn tiny_file() -> Vec<u8> {
    let mut file = encode_header(&Header {
        created_by: "test".into(),
        ..Default::default()
    });
    encode_frame(&mut file, FRAME_RECORDS, Compression::None, 1, 3, b"\x02\x0a\x00");
    let crc = crc32c::crc32c(&file);
    file.extend(encode_trailer_and_end(
        &Trailer {
            frames: 1,
            records: 1,
            ..Default::default()
        },
        crc,
    ));
    file
}

fn read_all(file: &[u8]) -> Result<u64, FormatError> {
    let (mut r, _) = FrameReader::open(file, Some(file.len() as u64))?;
    loop {
        let f = r.next_frame()?;
        f.check_crc()?;
        f.decompressed()?;
        if f.kind == FRAME_TRAILER {
            r.finish()?;
            return Ok(r.frames_read());
        }
    }
}

#[test]
fn a_written_file_reads_back_frame_by_frame() {
    assert_eq!(read_all(&tiny_file()).unwrap(), 2);
}

#[test]
fn every_truncation_and_every_byte_flip_is_refused() {
    let file = tiny_file();
    for cut in 0..file.len() {
        assert!(read_all(&file[..cut]).is_err(), "truncated at {cut}");
    }
    for at in 0..file.len() {
        let mut bad = file.clone();
        bad[at] ^= 0x5A;
        assert!(read_all(&bad).is_err(), "flipped at {at}");
    }
    let mut longer = file.clone();
    longer.push(0);
    assert!(read_all(&longer).unwrap_err().detail.contains("follow the end"));
}

#[test]
fn a_compressed_body_is_never_inflated_beyond_its_declared_length() {
    // 1 MiB of zeros compresses to a few hundred bytes; the frame says 1,000 bytes.
    let zeros = vec![0u8; 1 << 20];
    let (codec, body) = rockcask_codec::compress::Policy {
        codec: Compression::Zstd,
        threshold: 0,
    }
    .compress(&zeros);
    assert_eq!(codec, Compression::Zstd);
    let mut file = encode_header(&Header::default());
    encode_frame(&mut file, FRAME_RECORDS, codec, 1, 1000, &body);
    let (mut r, _) = FrameReader::open(&file[..], Some(file.len() as u64)).unwrap();
    let frame = r.next_frame().unwrap();
    frame.check_crc().unwrap();
    let e = frame.decompressed().unwrap_err();
    assert!(e.detail.contains("1000"), "{}", e.detail);
}

/// Offset of the tiny file's first frame.
fn first_frame(file: &[u8]) -> usize {
    16 + u32::from_le_bytes(file[12..16].try_into().unwrap()) as usize + 4
}

/// Sets a u32 field of the frame at `frame` and recomputes the head CRC: what a faulty or
/// hostile writer could produce, which only the field checks can catch.
fn set_field(file: &mut [u8], frame: usize, at: usize, value: u32) {
    file[frame + at..frame + at + 4].copy_from_slice(&value.to_le_bytes());
    let crc = crc32c::crc32c(&file[frame..frame + FRAME_FIELDS_BYTES]);
    file[frame + FRAME_FIELDS_BYTES..frame + FRAME_FIXED_BYTES].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn newer_versions_and_huge_lengths_are_refused_before_reading_on() {
    let mut file = tiny_file();
    file[8] = FORMAT_VERSION as u8 + 1;
    let e = read_all(&file).unwrap_err();
    assert!(
        e.detail.contains("newer") && e.detail.contains("versions 1 to 4"),
        "{}",
        e.detail
    );
    let mut file = tiny_file();
    let frame = first_frame(&file);
    set_field(&mut file, frame, 12, 1 << 31);
    let e = read_all(&file).unwrap_err();
    assert_eq!((e.offset, e.frame), (frame as u64, Some(0)));
    assert!(e.detail.contains("exceeds the limit"), "{}", e.detail);
    // Many more records than a frame may hold: refused from the frame's fixed part.
    let mut many = tiny_file();
    set_field(&mut many, frame, 4, MAX_FRAME_RECORDS + 1);
    set_field(&mut many, frame, 8, 1 << 30);
    assert!(read_all(&many).unwrap_err().detail.contains("records"));
    // Within the limit but past the end of the file: refused before allocating.
    set_field(&mut file, frame, 12, 1 << 29);
    assert!(read_all(&file).unwrap_err().detail.contains("past the end"));
}

#[test]
fn a_damaged_frame_length_is_reported_in_its_own_frame_before_it_is_used() {
    let file = tiny_file();
    let frame = first_frame(&file);
    for bit in 0..32 {
        let mut bad = file.clone();
        bad[frame + 12 + bit / 8] ^= 1 << (bit % 8);
        let e = read_all(&bad).unwrap_err();
        assert_eq!((e.offset, e.frame), (frame as u64, Some(0)), "bit {bit}: {}", e.detail);
        assert!(
            e.detail.contains("frame header checksum mismatch"),
            "bit {bit}: {}",
            e.detail
        );
    }
}

#[test]
fn version_1_files_without_a_frame_head_crc_are_still_read() {
    // The tiny file as version 1 wrote it: no head CRC, the frame CRC over fields and body.
    let mut file = encode_header(&Header {
        created_by: "test".into(),
        ..Default::default()
    });
    file[8..12].copy_from_slice(&1u32.to_le_bytes());
    let header_end = file.len() - CRC_BYTES;
    let crc = crc32c::crc32c(&file[..header_end]);
    file[header_end..].copy_from_slice(&crc.to_le_bytes());
    let v1_frame = |out: &mut Vec<u8>, kind: u8, records: u32, body: &[u8]| {
        let start = out.len();
        out.extend_from_slice(&[kind, 0, 0, 0]);
        for word in [records, body.len() as u32, body.len() as u32] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(body);
        let crc = crc32c::crc32c(&out[start..]);
        out.extend_from_slice(&crc.to_le_bytes());
    };
    v1_frame(&mut file, FRAME_RECORDS, 1, b"\x02\x0a\x00");
    v1_frame(
        &mut file,
        FRAME_TRAILER,
        0,
        &Trailer {
            frames: 1,
            records: 1,
            ..Default::default()
        }
        .encode_to_vec(),
    );
    let crc = crc32c::crc32c(&file);
    file.extend_from_slice(&crc.to_le_bytes());
    file.extend_from_slice(&END_MAGIC);
    assert_eq!(read_all(&file).unwrap(), 2);
    let (r, _) = FrameReader::open(&file[..], Some(file.len() as u64)).unwrap();
    assert_eq!(r.version, 1);
    // A damaged version 1 frame length is caught by the frame's CRC, in that frame.
    let frame = first_frame(&file);
    let mut bad = file.clone();
    bad[frame + 12] ^= 1;
    let e = read_all(&bad).unwrap_err();
    assert_eq!((e.offset, e.frame), (frame as u64, Some(0)), "{}", e.detail);
}

#[test]
fn a_damaged_file_header_is_reported_at_the_header_not_after_the_damage() {
    let file = tiny_file();
    for at in 16..first_frame(&file) {
        let mut bad = file.clone();
        bad[at] ^= 0x10;
        let e = read_all(&bad).unwrap_err();
        assert_eq!((e.offset, e.frame), (0, None), "byte {at}: {}", e.detail);
    }
}
