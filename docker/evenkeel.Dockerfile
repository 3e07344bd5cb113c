# The Java services of Evenkeel (shard server, query service, CDC runner) from the project's own jars:
#   ./mvnw -B -DskipTests package && docker compose -f docker/compose.yaml build
# Each service of compose.yaml runs one of them with its own command; none runs as root.
FROM eclipse-temurin:17-jre

RUN groupadd --system evenkeel && useradd --system --gid evenkeel --home-dir /opt/evenkeel evenkeel \
    && mkdir -p /data /opt/evenkeel/cdc && chown evenkeel:evenkeel /data

COPY shard-server/target/shard-server.jar /opt/evenkeel/shard-server.jar
COPY query-service/target/query-service.jar /opt/evenkeel/query-service.jar
COPY cdc/target/lib/ /opt/evenkeel/cdc/
COPY cdc/target/evenkeel-cdc-0.1.0-SNAPSHOT.jar /opt/evenkeel/cdc/

USER evenkeel
WORKDIR /opt/evenkeel
VOLUME ["/data"]
