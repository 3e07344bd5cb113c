package io.evenkeel.shard.replication;

import com.google.protobuf.ByteString;
import io.evenkeel.schemas.shard.IndexFile;
import io.evenkeel.schemas.shard.NrtPoint;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;

/** Lucene's replication values in and out of their messages. */
public final class NrtPoints {
  private NrtPoints() {}

  static NrtPoint toMessage(CopyState state, long coveredSeqNo) {
    return NrtPoint.newBuilder()
        .putAllFiles(toMessages(state.files))
        .setVersion(state.version)
        .setGeneration(state.gen)
        .setInfos(ByteString.copyFrom(state.infosBytes))
        .addAllCompletedMergeFiles(state.completedMergeFiles)
        .setPrimaryTerm(state.primaryGen)
        .setCoveredSeqNo(coveredSeqNo)
        .build();
  }

  static CopyState fromMessage(NrtPoint point) {
    return new CopyState(fromMessages(point.getFilesMap()), point.getVersion(), point.getGeneration(),
        point.getInfos().toByteArray(), new HashSet<>(point.getCompletedMergeFilesList()), point.getPrimaryTerm(),
        null);
  }

  static Map<String, IndexFile> toMessages(Map<String, FileMetaData> files) {
    Map<String, IndexFile> messages = new HashMap<>();
    files.forEach((name, file) -> messages.put(name, IndexFile.newBuilder()
        .setHeader(ByteString.copyFrom(file.header))
        .setFooter(ByteString.copyFrom(file.footer))
        .setLength(file.length)
        .setChecksum(file.checksum)
        .build()));
    return messages;
  }

  public static Map<String, FileMetaData> fromMessages(Map<String, IndexFile> messages) {
    Map<String, FileMetaData> files = new HashMap<>();
    messages.forEach((name, file) -> files.put(name, new FileMetaData(file.getHeader().toByteArray(),
        file.getFooter().toByteArray(), file.getLength(), file.getChecksum())));
    return files;
  }
}
