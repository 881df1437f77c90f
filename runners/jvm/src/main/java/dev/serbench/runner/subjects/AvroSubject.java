package dev.serbench.runner.subjects;

import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.kit.Kit;
import dev.serbench.runner.kit.Projection;
import dev.serbench.runner.kit.Subject;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Avro generic records with the schema derived from the Arrow schema ({@link AvroSchemas}). The
 * encoded form is Avro binary: the row count as an Avro long, then each row's datum (datums are
 * self-delimiting; no container file, no per-record length). Strings decode as Avro's Utf8. A
 * query reads with a reader schema holding only the projected fields (Avro schema resolution
 * skips the others).
 */
public final class AvroSubject implements Subject {
  @Override
  public String name() {
    return "avro-generic";
  }

  @Override
  public String format() {
    return "avro";
  }

  @Override
  public String library() {
    return "org.apache.avro:avro";
  }

  @Override
  public List<String> ops() {
    return List.of("encode", "decode", "query", FILE_OPS.get(0), FILE_OPS.get(1));
  }

  /**
   * The data model of imported files: Avro's logical-type conversions, so a file's timestamps
   * (timestamp-millis, -micros, -nanos, local-timestamp-*), dates and decimals come back as
   * {@code Instant}, {@code LocalDateTime}, {@code LocalDate} and {@code BigDecimal} whatever unit
   * the writer chose.
   */
  static GenericData withConversions() {
    GenericData gd = new GenericData();
    gd.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.TimestampMillisConversion());
    gd.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.TimestampMicrosConversion());
    gd.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.TimestampNanosConversion());
    gd.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.LocalTimestampMillisConversion());
    gd.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.LocalTimestampMicrosConversion());
    gd.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.LocalTimestampNanosConversion());
    gd.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.DateConversion());
    gd.addLogicalTypeConversion(new org.apache.avro.Conversions.DecimalConversion());
    return gd;
  }

  @Override
  public Map<String, String> labels() {
    return Kit.labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
        "model", "GenericRecord (schema derived from Arrow)", "framing", "count + binary datums");
  }

  @Override
  public Bound bind(Dataset ds, Path tmp) {
    Schema schema = AvroSchemas.fromArrow(ds.schema());
    List<Field> fields = ds.schema().getFields();
    GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
    GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(schema);
    return new Bound() {
      Projection lastP;
      GenericDatumReader<GenericRecord> projReader;

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
        List<GenericRecord> rs = (List<GenericRecord>) natives;
        ByteArrayOutputStream bos = new ByteArrayOutputStream(4096);
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(bos, null);
        enc.writeLong(rs.size());
        for (GenericRecord r : rs) {
          writer.write(r, enc);
        }
        enc.flush();
        return bos.toByteArray();
      }

      List<GenericRecord> read(byte[] bytes, GenericDatumReader<GenericRecord> rd) throws Exception {
        BinaryDecoder dec = DecoderFactory.get().binaryDecoder(bytes, null);
        long n = dec.readLong();
        List<GenericRecord> out = new ArrayList<>((int) Math.min(n, 1 << 20));
        for (long i = 0; i < n; i++) {
          out.add(rd.read(null, dec));
        }
        return out;
      }

      @Override
      public Object decode(byte[] bytes) throws Exception {
        return read(bytes, reader);
      }

      @Override
      public Object query(byte[] bytes, Projection p) throws Exception {
        if (p != lastP) {
          lastP = p;
          projReader = new GenericDatumReader<>(schema, AvroSchemas.fromArrow(p.pruned()));
        }
        return read(bytes, projReader);
      }

      @Override
      public List<?> rows(Object decoded) {
        return (List<?>) decoded;
      }

      @Override
      public Nav nav() {
        return AvroNav.INSTANCE;
      }

      /** Export: an object container file (codec null) of the records. */
      @Override
      @SuppressWarnings("unchecked")
      public void writeFile(Object natives, Path path) throws Exception {
        try (DataFileWriter<GenericRecord> w = new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
          w.create(schema, path.toFile());
          for (GenericRecord r : (List<GenericRecord>) natives) {
            w.append(r);
          }
        }
      }

      /**
       * Import: the file's records through its own (writer's) schema: another language names its
       * records its own way; the digest reads fields by (sanitized) name.
       */
      @Override
      public Object readFile(Path path) throws Exception {
        List<GenericRecord> out = new ArrayList<>();
        GenericData gd = withConversions();
        try (DataFileReader<GenericRecord> r = new DataFileReader<>(path.toFile(),
            new GenericDatumReader<GenericRecord>(null, null, gd))) {
          for (GenericRecord g : r) {
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
}
