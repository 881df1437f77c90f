package dev.serbench.runner.subjects;

import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.digest.Nav;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.avro.Schema;
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
    return List.of("encode", "decode", "query");
  }

  @Override
  public Map<String, String> labels() {
    return GenericSubject.labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
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
    };
  }
}
