package dev.serbench.runner.subjects;

import dev.serbench.runner.arrow.Arrow;
import dev.serbench.runner.arrow.ArrowRows;
import dev.serbench.runner.arrow.ArrowWrite;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.kit.Kit;
import dev.serbench.runner.kit.Subject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Arrow Java IPC stream: the native objects are one VectorSchemaRoot holding the rows (no
 * dictionary encoding); encode writes schema, one record batch and end-of-stream into a byte array;
 * decode reads every batch and keeps its vectors (transferred out of the reader's root), releasing
 * them when the timed op is done with them.
 */
public final class ArrowIpcSubject implements Subject {
  @Override
  public String name() {
    return "arrow-ipc";
  }

  @Override
  public String format() {
    return "arrow-ipc-stream";
  }

  @Override
  public String library() {
    return "org.apache.arrow:arrow-vector";
  }

  @Override
  public List<String> ops() {
    return List.of("encode", "decode", FILE_OPS.get(0), FILE_OPS.get(1));
  }

  @Override
  public Map<String, String> labels() {
    return Kit.labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
        "model", "VectorSchemaRoot (columnar)", "layout", "columnar");
  }

  @Override
  public Bound bind(Dataset ds, Path tmp) {
    BufferAllocator alloc = Arrow.allocator().newChildAllocator("arrow-ipc", 0, Long.MAX_VALUE);
    return new Bound() {
      final List<VectorSchemaRoot> owned = new ArrayList<>();

      @Override
      public Object prepare(List<Map<String, Object>> rows) {
        VectorSchemaRoot r = ArrowWrite.write(ds.schema(), rows, alloc);
        owned.add(r);
        return r;
      }

      @Override
      public byte[] encode(Object natives) throws Exception {
        VectorSchemaRoot r = (VectorSchemaRoot) natives;
        ByteArrayOutputStream bos = new ByteArrayOutputStream(4096);
        try (ArrowStreamWriter w = new ArrowStreamWriter(r, null, Channels.newChannel(bos))) {
          w.start();
          w.writeBatch();
          w.end();
        }
        return bos.toByteArray();
      }

      @Override
      public Object decode(byte[] bytes) throws Exception {
        List<VectorSchemaRoot> out = new ArrayList<>();
        try (ArrowStreamReader rd = new ArrowStreamReader(new ByteArrayInputStream(bytes), alloc)) {
          VectorSchemaRoot root = rd.getVectorSchemaRoot();
          while (rd.loadNextBatch()) {
            List<FieldVector> vs = new ArrayList<>();
            for (FieldVector v : root.getFieldVectors()) {
              TransferPair tp = v.getTransferPair(alloc);
              tp.transfer();
              vs.add((FieldVector) tp.getTo());
            }
            out.add(new VectorSchemaRoot(root.getSchema().getFields(), vs, root.getRowCount()));
          }
        }
        return out;
      }

      @Override
      public Object decodeTimed(byte[] bytes) throws Exception {
        Object d = decode(bytes);
        release(d);
        return d;
      }

      @Override
      @SuppressWarnings("unchecked")
      public List<?> rows(Object decoded) {
        return ArrowRows.rows((List<VectorSchemaRoot>) decoded, null);
      }

      /** Export: the IPC file format (magic, one record batch, footer), not the stream. */
      @Override
      public void writeFile(Object natives, Path path) throws Exception {
        VectorSchemaRoot r = (VectorSchemaRoot) natives;
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(path,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE,
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
            ArrowFileWriter w = new ArrowFileWriter(r, null, ch)) {
          w.start();
          w.writeBatch();
          w.end();
        }
      }

      /** Import: every record batch of an IPC file, dictionaries decoded, as generic rows. */
      @Override
      public Object readFile(Path path) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(path);
            ArrowFileReader rd = new ArrowFileReader(ch, alloc)) {
          VectorSchemaRoot root = rd.getVectorSchemaRoot();
          for (org.apache.arrow.vector.ipc.message.ArrowBlock b : rd.getRecordBlocks()) {
            rd.loadRecordBatch(b);
            ArrowRows.appendRows(root, rd, rows);
          }
        }
        return rows;
      }

      @Override
      public List<?> fileRows(Object read) {
        return (List<?>) read;
      }

      @Override
      @SuppressWarnings("unchecked")
      public void release(Object o) {
        for (VectorSchemaRoot r : (List<VectorSchemaRoot>) o) {
          r.close();
        }
      }

      @Override
      public void close() {
        for (VectorSchemaRoot r : owned) {
          r.close();
        }
        owned.clear();
        alloc.close();
      }
    };
  }
}
