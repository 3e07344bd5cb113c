# The ingest job as a Flink application: the official Flink image with the job's jar (target/ingest-job.jar, which
# leaves out what the Flink distribution provides) where application mode looks for it.
#   ./mvnw -B -DskipTests package && docker compose -f docker/compose.yaml build
FROM flink:2.2.1-java17

# The checkpoint volume's mount point, owned by the user Flink runs as: a new named volume takes this ownership.
RUN mkdir -p /checkpoints && chown flink:flink /checkpoints
COPY --chown=flink:flink ingest-job/target/ingest-job.jar /opt/flink/usrlib/ingest-job.jar
