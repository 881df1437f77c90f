package dev.serbench.runner.subjects;

import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.kit.CannotHold;
import dev.serbench.runner.kit.Kit;
import dev.serbench.runner.kit.Projection;
import dev.serbench.runner.kit.Subject;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.avro.AvroReadSupport;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Parquet through parquet-java's parquet-avro, without Hadoop: the rows as Avro generic records
 * (the schema derived from Arrow, {@link AvroSchemas}) written by AvroParquetWriter to an
 * in-memory OutputFile and read back by AvroParquetReader from an in-memory InputFile, with
 * {@link PlainParquetConfiguration} instead of Hadoop's Configuration. Lists use the 3-level LIST
 * structure (parquet.avro.write-old-list-structure=false, so list elements may be null); pages are
 * uncompressed (serbench's codec, if any, applies to the whole file like for every subject). A
 * query reads with a requested projection (parquet.avro.projection): only the projected columns'
 * pages are read and decoded.
 */
public final class ParquetSubject implements Subject {
  @Override
  public String name() {
    return "parquet";
  }

  @Override
  public String format() {
    return "parquet";
  }

  @Override
  public String library() {
    return "org.apache.parquet:parquet-avro";
  }

  @Override
  public List<String> ops() {
    return List.of("encode", "decode", "query", FILE_OPS.get(0), FILE_OPS.get(1));
  }

  @Override
  public Map<String, String> labels() {
    return Kit.labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
        "model", "Avro GenericRecord via parquet-avro", "layout", "columnar", "file", "in memory",
        "page_compression", "none");
  }

  // The OutputFile and ParquetConfiguration overloads, looked up by type: their Hadoop twins
  // (builder(hadoop Path), withConf(hadoop Configuration)) would make javac load Hadoop classes,
  // which this runner does not ship.
  static final MethodHandle WRITER_BUILDER;
  static final MethodHandle WITH_CONF;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.publicLookup();
      WRITER_BUILDER = l.unreflect(AvroParquetWriter.class.getMethod("builder", OutputFile.class));
      WITH_CONF = l.unreflect(ParquetWriter.Builder.class.getMethod("withConf", ParquetConfiguration.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static PlainParquetConfiguration conf() {
    PlainParquetConfiguration c = new PlainParquetConfiguration();
    c.set(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, "false");
    c.set(AvroReadSupport.AVRO_COMPATIBILITY, "false");
    return c;
  }

  @Override
  public Bound bind(Dataset ds, Path tmp) {
    for (Field f : ds.schema().getFields()) {
      String n = nullTyped(f, f.getName());
      if (n != null) {
        // parquet-avro's schema converter has no Parquet type for Avro's null.
        throw new CannotHold(
            "parquet: column " + n + " is of Arrow type null: parquet-avro converts no Avro null type"
                + " to Parquet (\"Cannot convert Avro type NULL\")");
      }
    }
    Schema schema = AvroSchemas.fromArrow(ds.schema());
    List<Field> fields = ds.schema().getFields();
    return new Bound() {
      Projection lastP;
      String projJson;

      @Override
      public Object prepare(List<Map<String, Object>> rows) {
        List<GenericRecord> out = new ArrayList<>(rows.size());
        for (Map<String, Object> r : rows) {
          out.add(AvroSchemas.toRecord(r, fields, schema));
        }
        return out;
      }

      @Override
      @SuppressWarnings("unchecked")
      public byte[] encode(Object natives) throws Exception {
        MemOut out = new MemOut();
        AvroParquetWriter.Builder<GenericRecord> b;
        try {
          b = (AvroParquetWriter.Builder<GenericRecord>) WRITER_BUILDER.invoke(out);
          b = (AvroParquetWriter.Builder<GenericRecord>) WITH_CONF.invoke(b, conf());
        } catch (Exception | Error e) {
          throw e;
        } catch (Throwable t) {
          throw new IllegalStateException(t);
        }
        try (ParquetWriter<GenericRecord> w = b
            .withSchema(schema)
            .withDataModel(GenericData.get())
            .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
            .build()) {
          for (GenericRecord r : (List<GenericRecord>) natives) {
            w.write(r);
          }
        }
        return out.bytes();
      }

      List<GenericRecord> read(byte[] bytes, PlainParquetConfiguration c) throws IOException {
        List<GenericRecord> out = new ArrayList<>();
        try (ParquetReader<GenericRecord> r = AvroParquetReader.<GenericRecord>builder(new MemIn(bytes), c)
            .withDataModel(GenericData.get())
            .build()) {
          GenericRecord g;
          while ((g = r.read()) != null) {
            out.add(g);
          }
        }
        return out;
      }

      @Override
      public Object decode(byte[] bytes) throws Exception {
        PlainParquetConfiguration c = conf();
        c.set(AvroReadSupport.AVRO_REQUESTED_PROJECTION, schema.toString());
        return read(bytes, c);
      }

      @Override
      public Object query(byte[] bytes, Projection p) throws Exception {
        if (p != lastP) {
          lastP = p;
          projJson = AvroSchemas.fromArrow(p.pruned()).toString();
        }
        PlainParquetConfiguration c = conf();
        c.set(AvroReadSupport.AVRO_REQUESTED_PROJECTION, projJson);
        return read(bytes, c);
      }

      @Override
      public List<?> rows(Object decoded) {
        return (List<?>) decoded;
      }

      @Override
      public Nav nav() {
        return AvroNav.INSTANCE;
      }

      /** Export: the Parquet file encode makes (uncompressed pages, 3-level lists). */
      @Override
      public void writeFile(Object natives, Path path) throws Exception {
        java.nio.file.Files.write(path, encode(natives));
      }

      /**
       * Import: the file through the Avro schema parquet-avro derives from the file's own Parquet
       * schema (no requested projection: another language names and nests its columns its own
       * way), with Avro's logical-type conversions (timestamps in any unit as Instant).
       */
      @Override
      public Object readFile(Path path) throws Exception {
        List<GenericRecord> out = new ArrayList<>();
        PlainParquetConfiguration c = conf();
        // A file without parquet-avro's own schema in its footer (Go's, pyarrow's, polars'):
        // read its 3-level LIST groups as lists of their elements, not as lists of records
        // holding one field "element" (parquet-avro's default guess for a repeated group).
        c.set(org.apache.parquet.avro.AvroSchemaConverter.ADD_LIST_ELEMENT_RECORDS, "false");
        try (ParquetReader<GenericRecord> r = AvroParquetReader.<GenericRecord>builder(
                new MemIn(java.nio.file.Files.readAllBytes(path)), c)
            .withDataModel(AvroSubject.withConversions())
            .build()) {
          GenericRecord g;
          while ((g = r.read()) != null) {
            out.add(g);
          }
        }
        return out;
      }

      @Override
      public Nav fileNav() {
        return FileValues.NAV;
      }
    };
  }

  /** The path of the first null-typed field at or under f, or null. */
  static String nullTyped(Field f, String path) {
    if (f.getType().getTypeID() == org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID.Null) {
      return path;
    }
    for (Field c : f.getChildren()) {
      String n = nullTyped(c, path + "." + c.getName());
      if (n != null) {
        return n;
      }
    }
    return null;
  }

  /** An in-memory Parquet output file. */
  static final class MemOut implements OutputFile {
    final Buf buf = new Buf();

    static final class Buf extends ByteArrayOutputStream {
      Buf() {
        super(1 << 16);
      }

      byte[] array() {
        return buf;
      }
    }

    byte[] bytes() {
      return buf.toByteArray();
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) {
      return new PositionOutputStream() {
        @Override
        public long getPos() {
          return buf.size();
        }

        @Override
        public void write(int b) {
          buf.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
          buf.write(b, off, len);
        }
      };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
      buf.reset();
      return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }

    @Override
    public String getPath() {
      return "memory";
    }
  }

  /** An in-memory Parquet input file. */
  static final class MemIn implements InputFile {
    final byte[] b;

    MemIn(byte[] b) {
      this.b = b;
    }

    @Override
    public long getLength() {
      return b.length;
    }

    @Override
    public SeekableInputStream newStream() {
      return new SeekableInputStream() {
        int pos;

        @Override
        public long getPos() {
          return pos;
        }

        @Override
        public void seek(long p) throws IOException {
          if (p < 0 || p > b.length) {
            throw new EOFException("seek to " + p + " of " + b.length);
          }
          pos = (int) p;
        }

        @Override
        public int read() {
          return pos < b.length ? b[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] dst, int off, int len) {
          if (pos >= b.length) {
            return -1;
          }
          int n = Math.min(len, b.length - pos);
          System.arraycopy(b, pos, dst, off, n);
          pos += n;
          return n;
        }

        @Override
        public void readFully(byte[] dst) throws IOException {
          readFully(dst, 0, dst.length);
        }

        @Override
        public void readFully(byte[] dst, int off, int len) throws IOException {
          if (len > b.length - pos) {
            throw new EOFException();
          }
          System.arraycopy(b, pos, dst, off, len);
          pos += len;
        }

        @Override
        public int read(ByteBuffer dst) {
          if (pos >= b.length) {
            return -1;
          }
          int n = Math.min(dst.remaining(), b.length - pos);
          dst.put(b, pos, n);
          pos += n;
          return n;
        }

        @Override
        public void readFully(ByteBuffer dst) throws IOException {
          if (dst.remaining() > b.length - pos) {
            throw new EOFException();
          }
          int n = dst.remaining();
          dst.put(b, pos, n);
          pos += n;
        }
      };
    }
  }
}
