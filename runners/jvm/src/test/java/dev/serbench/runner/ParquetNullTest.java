package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.kit.CannotHold;
import dev.serbench.runner.subjects.Subjects;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** parquet-avro has no Parquet type for Avro's null: a null-typed column is cannot hold. */
class ParquetNullTest {
  @TempDir
  Path tmp;

  @Test
  void nullListCannotHold() {
    Field item = Field.nullable("item", ArrowType.Null.INSTANCE);
    Field list = new Field("emptylist", FieldType.nullable(ArrowType.List.INSTANCE), List.of(item));
    Dataset ds = new Dataset("null-list", new Schema(List.of(list)), List.of());
    CannotHold e = assertThrows(CannotHold.class, () -> Subjects.all().get("parquet").bind(ds, tmp));
    assertTrue(e.getMessage().contains("column emptylist.item is of Arrow type null"), e.getMessage());
  }
}
