# Sourced once by the MySQL image's entrypoint, at its first start: the CDC runner's own user, with only what
# Debezium's MySQL connector needs (read rows, read the binlog, see the tables, flush for the snapshot), and its
# password from the secret file.
docker_process_sql --database=mysql <<SQL
CREATE USER 'evenkeel_cdc'@'%' IDENTIFIED BY '$(cat /run/secrets/cdc-password)';
GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'evenkeel_cdc'@'%';
SQL
