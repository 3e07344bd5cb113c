package io.evenkeel.benchmarks.peer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.workload.RowGenerator;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows both systems load: Zipf(θ = 1) tenants from the benchmarks' {@link RowGenerator}, each row once as a
 * JSON object with the table's column names (price as a decimal string), as {@code bin/evenkeel load} reads them and
 * OpenSearch indexes them.
 */
public final class PeerRows {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<TransactionLogChange> rows;

  private PeerRows(List<TransactionLogChange> rows) {
    this.rows = rows;
  }

  public static PeerRows generate(long seed, int count, int tenants) {
    RowGenerator generator = new RowGenerator(seed, tenants, 1.0);
    List<TransactionLogChange> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      rows.add(generator.next());
    }
    return new PeerRows(rows);
  }

  public List<TransactionLogChange> rows() {
    return rows;
  }

  /** The rows again with {@code offset} added to each row id: new rows of the same tenants and times. */
  public PeerRows shifted(long offset) {
    return new PeerRows(rows.stream().map(row -> TransactionLogChange.newBuilder(row)
        .setRowId(row.getRowId() + offset).build()).toList());
  }

  /** One JSON object per line, as {@code bin/evenkeel load} reads them. */
  public void writeJsonLines(Path file) throws IOException {
    try (BufferedWriter out = Files.newBufferedWriter(file)) {
      for (TransactionLogChange row : rows) {
        out.write(JSON.writeValueAsString(json(row)));
        out.newLine();
      }
    }
  }

  /** {@code _bulk} bodies of {@code perRequest} rows each, routed by tenant, with id {@code tenant_row}. */
  List<String> bulkBodies(String index, int perRequest) throws IOException {
    List<String> bodies = new ArrayList<>();
    StringBuilder body = new StringBuilder();
    int inBody = 0;
    for (TransactionLogChange row : rows) {
      ObjectNode action = JSON.createObjectNode();
      action.putObject("index").put("_index", index).put("_id", row.getTenantId() + "_" + row.getRowId())
          .put("routing", Long.toString(row.getTenantId()));
      body.append(JSON.writeValueAsString(action)).append('\n').append(JSON.writeValueAsString(json(row)))
          .append('\n');
      if (++inBody == perRequest) {
        bodies.add(body.toString());
        body.setLength(0);
        inBody = 0;
      }
    }
    if (inBody > 0) {
      bodies.add(body.toString());
    }
    return bodies;
  }

  public static ObjectNode json(TransactionLogChange row) {
    ObjectNode node = JSON.createObjectNode();
    node.put("tenant_id", row.getTenantId());
    node.put("row_id", row.getRowId());
    node.put("created_time", row.getCreatedTime());
    node.put("modified_time", row.getModifiedTime());
    node.put("status", row.getStatus());
    node.put("buyer_id", row.getBuyerId());
    node.put("seller_nick", row.getSellerNick());
    node.put("buyer_nick", row.getBuyerNick());
    node.put("title", row.getTitle());
    node.put("price", row.getPrice().toPlainString());
    node.put("quantity", row.getQuantity());
    node.put("group_id", row.getGroupId());
    node.put("attributes", row.getAttributes());
    return node;
  }
}
