package dev.serbench.runner.measure;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.Decoder;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FastDecompressor;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZInputStream;
import org.tukaani.xz.XZOutputStream;
import org.xerial.snappy.Snappy;
import dev.serbench.runner.Versions;

/**
 * Compression applied to a subject's encoded bytes: {@code none}, {@code gzip:N} (JDK
 * java.util.zip, levels 1–9), {@code zstd:N} (zstd-jni, single frame with content size),
 * {@code lz4} (lz4-java block format, fastest instance, prefixed by the uncompressed length as 4
 * bytes little-endian), {@code snappy} (snappy-java raw format), {@code xz:N} (XZ for Java,
 * LZMA2 preset N) and {@code brotli:N} (brotli4j: Google's C library through JNI, quality 0–11).
 */
public interface Codec {
  byte[] compress(byte[] b) throws IOException;

  byte[] decompress(byte[] b) throws IOException;

  /** The codecs announced in hello. */
  List<String> ANNOUNCED = List.of("none", "gzip:1", "gzip:6", "gzip:9", "zstd:1", "zstd:3", "zstd:9",
      "zstd:19", "lz4", "snappy", "xz:6", "brotli:5", "brotli:11");

  static String library() {
    return "JDK java.util.zip (gzip); com.github.luben:zstd-jni " + Versions.of("com.github.luben:zstd-jni")
        + " (zstd); at.yawk.lz4:lz4-java " + Versions.of("at.yawk.lz4:lz4-java")
        + " (lz4 block); org.xerial.snappy:snappy-java " + Versions.of("org.xerial.snappy:snappy-java")
        + " (snappy); org.tukaani:xz " + Versions.of("org.tukaani:xz") + " (xz); com.aayushatharva.brotli4j:brotli4j "
        + Versions.of("com.aayushatharva.brotli4j:brotli4j") + " (brotli)";
  }

  Codec NONE = new Codec() {
    @Override
    public byte[] compress(byte[] b) {
      return b;
    }

    @Override
    public byte[] decompress(byte[] b) {
      return b;
    }
  };

  /** Parses a codec name; an unknown name or level is an IllegalArgumentException. */
  static Codec parse(String spec) {
    if (spec == null || spec.isEmpty() || spec.equals("none")) {
      return NONE;
    }
    String name = spec;
    Integer level = null;
    int c = spec.indexOf(':');
    if (c >= 0) {
      name = spec.substring(0, c);
      try {
        level = Integer.parseInt(spec.substring(c + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("codec " + spec + ": bad level");
      }
    }
    switch (name) {
      case "gzip": {
        int lv = level == null ? 6 : level;
        if (lv < 1 || lv > 9) {
          throw new IllegalArgumentException("codec " + spec + ": gzip levels are 1-9");
        }
        return new Gzip(lv);
      }
      case "zstd": {
        int lv = level == null ? 3 : level;
        if (lv < Zstd.minCompressionLevel() || lv > Zstd.maxCompressionLevel() || lv == 0) {
          throw new IllegalArgumentException("codec " + spec + ": bad zstd level");
        }
        return new ZstdCodec(lv);
      }
      case "lz4":
        if (level != null) {
          throw new IllegalArgumentException("codec " + spec + ": lz4 takes no level");
        }
        return new Lz4();
      case "snappy":
        if (level != null) {
          throw new IllegalArgumentException("codec " + spec + ": snappy takes no level");
        }
        return new SnappyCodec();
      case "xz": {
        int lv = level == null ? 6 : level;
        if (lv < 0 || lv > 9) {
          throw new IllegalArgumentException("codec " + spec + ": xz presets are 0-9");
        }
        return new Xz(lv);
      }
      case "brotli": {
        int lv = level == null ? 6 : level;
        if (lv < 0 || lv > 11) {
          throw new IllegalArgumentException("codec " + spec + ": brotli qualities are 0-11");
        }
        return new BrotliCodec(lv);
      }
      default:
        throw new IllegalArgumentException("unknown codec " + spec);
    }
  }

  final class Gzip implements Codec {
    final int level;

    Gzip(int level) {
      this.level = level;
    }

    @Override
    public byte[] compress(byte[] b) throws IOException {
      ByteArrayOutputStream bos = new ByteArrayOutputStream(Math.max(64, b.length / 4));
      try (GZIPOutputStream g = new GZIPOutputStream(bos, 65536) {
            {
              def.setLevel(level);
            }
          }) {
        g.write(b);
      }
      return bos.toByteArray();
    }

    @Override
    public byte[] decompress(byte[] b) throws IOException {
      try (GZIPInputStream g = new GZIPInputStream(new ByteArrayInputStream(b), 65536)) {
        return g.readAllBytes();
      }
    }
  }

  final class ZstdCodec implements Codec {
    final int level;

    ZstdCodec(int level) {
      this.level = level;
    }

    @Override
    public byte[] compress(byte[] b) {
      return Zstd.compress(b, level);
    }

    @Override
    public byte[] decompress(byte[] b) throws IOException {
      long n = Zstd.getFrameContentSize(b);
      if (n < 0 || n > Integer.MAX_VALUE) {
        throw new IOException("zstd: no content size in the frame");
      }
      return Zstd.decompress(b, (int) n);
    }
  }

  final class Lz4 implements Codec {
    static final LZ4Factory F = LZ4Factory.fastestInstance();
    final LZ4Compressor c = F.fastCompressor();
    final LZ4FastDecompressor d = F.fastDecompressor();

    @Override
    public byte[] compress(byte[] b) {
      byte[] out = new byte[4 + c.maxCompressedLength(b.length)];
      int n = c.compress(b, 0, b.length, out, 4, out.length - 4);
      out[0] = (byte) b.length;
      out[1] = (byte) (b.length >>> 8);
      out[2] = (byte) (b.length >>> 16);
      out[3] = (byte) (b.length >>> 24);
      return java.util.Arrays.copyOf(out, 4 + n);
    }

    @Override
    public byte[] decompress(byte[] b) {
      int n = (b[0] & 0xff) | (b[1] & 0xff) << 8 | (b[2] & 0xff) << 16 | (b[3] & 0xff) << 24;
      byte[] out = new byte[n];
      d.decompress(b, 4, out, 0, n);
      return out;
    }
  }

  final class SnappyCodec implements Codec {
    @Override
    public byte[] compress(byte[] b) throws IOException {
      return Snappy.compress(b);
    }

    @Override
    public byte[] decompress(byte[] b) throws IOException {
      return Snappy.uncompress(b);
    }
  }

  final class Xz implements Codec {
    final int level;

    Xz(int level) {
      this.level = level;
    }

    @Override
    public byte[] compress(byte[] b) throws IOException {
      ByteArrayOutputStream bos = new ByteArrayOutputStream(Math.max(64, b.length / 4));
      try (XZOutputStream x = new XZOutputStream(bos, new LZMA2Options(level))) {
        x.write(b);
      }
      return bos.toByteArray();
    }

    @Override
    public byte[] decompress(byte[] b) throws IOException {
      try (XZInputStream x = new XZInputStream(new ByteArrayInputStream(b))) {
        return x.readAllBytes();
      }
    }
  }

  final class BrotliCodec implements Codec {
    final Encoder.Parameters params;

    BrotliCodec(int quality) {
      Brotli4jLoader.ensureAvailability();
      this.params = new Encoder.Parameters().setQuality(quality);
    }

    @Override
    public byte[] compress(byte[] b) throws IOException {
      return Encoder.compress(b, params);
    }

    @Override
    public byte[] decompress(byte[] b) throws IOException {
      return Decoder.decompress(b, 0, b.length);
    }
  }
}
