package dev.serbench.runner.arrow;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Writes generic rows as an Arrow IPC stream (for tests, the JMH check and tools). */
public final class ArrowFiles {
  private ArrowFiles() {}

  /**
   * Writes {@code rows} as an Arrow IPC stream of batches of at most {@code batchRows} rows.
   * Top-level fields of {@code schema} that carry a dictionary encoding (with their value type as
   * type) are written dictionary-encoded, one dictionary of all distinct values.
   */
  public static void writeStream(Schema schema, List<? extends Map<String, Object>> rows, int batchRows, OutputStream out)
      throws IOException {
    BufferAllocator alloc = Arrow.allocator().newChildAllocator("write", 0, Long.MAX_VALUE);
    List<AutoCloseable> closers = new ArrayList<>();
    try {
      Schema plain = ArrowWrite.plain(schema);
      DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider();
      Map<String, Dictionary> dicts = new HashMap<>();
      List<Field> outFields = new ArrayList<>();
      for (Field f : schema.getFields()) {
        if (f.getDictionary() == null) {
          outFields.add(ArrowWrite.plain(f));
          continue;
        }
        Set<Object> distinct = new LinkedHashSet<>();
        for (Map<String, Object> r : rows) {
          Object v = r.get(f.getName());
          if (v != null) {
            distinct.add(v);
          }
        }
        Field vf = new Field(f.getName(), new FieldType(true, f.getType(), null), ArrowWrite.plain(f).getChildren());
        Schema ds = new Schema(List.of(vf));
        List<Map<String, Object>> drows = new ArrayList<>();
        for (Object v : distinct) {
          Map<String, Object> m = new HashMap<>();
          m.put(f.getName(), v);
          drows.add(m);
        }
        VectorSchemaRoot dr = ArrowWrite.write(ds, drows, alloc);
        FieldVector dv = dr.getVector(0);
        Dictionary d = new Dictionary(dv, f.getDictionary());
        closers.add(dr);
        provider.put(d);
        dicts.put(f.getName(), d);
        outFields.add(new Field(f.getName(),
            new FieldType(f.isNullable(), f.getDictionary().getIndexType(), f.getDictionary(), f.getMetadata()), null));
      }
      Schema outSchema = new Schema(outFields, schema.getCustomMetadata());
      try (VectorSchemaRoot outRoot = VectorSchemaRoot.create(outSchema, alloc);
          ArrowStreamWriter w = new ArrowStreamWriter(outRoot, provider, Channels.newChannel(out))) {
        w.start();
        int n = rows.size();
        for (int start = 0; start < n || (n == 0 && start == 0); start += Math.max(batchRows, 1)) {
          List<? extends Map<String, Object>> chunk = rows.subList(start, Math.min(n, start + Math.max(batchRows, 1)));
          try (VectorSchemaRoot pr = ArrowWrite.write(plain, chunk, alloc)) {
            List<FieldVector> vs = new ArrayList<>();
            List<AutoCloseable> tmp = new ArrayList<>();
            for (FieldVector v : pr.getFieldVectors()) {
              Dictionary d = dicts.get(v.getField().getName());
              if (d == null) {
                vs.add(v);
              } else {
                FieldVector enc = (FieldVector) DictionaryEncoder.encode(v, d);
                tmp.add(enc);
                vs.add(enc);
              }
            }
            try (VectorSchemaRoot er = new VectorSchemaRoot(outSchema.getFields(), vs, chunk.size());
                ArrowRecordBatch batch = new VectorUnloader(er).getRecordBatch()) {
              new VectorLoader(outRoot).load(batch);
              w.writeBatch();
            } finally {
              for (AutoCloseable c : tmp) {
                c.close();
              }
            }
          }
          if (n == 0) {
            break;
          }
        }
        w.end();
      }
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    } finally {
      for (AutoCloseable c : closers) {
        try {
          c.close();
        } catch (Exception ignored) {
          // closing
        }
      }
      alloc.close();
    }
  }
}
