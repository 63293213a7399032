-- The shipped DDL of schema version 1, kept verbatim to test upgrades from it.
-- Idempotency store schema, version 1, for MariaDB and MySQL (InnoDB).
-- ${table} is the configured table name (default idempotency_keys); ${name} is its unqualified part.
-- Keys, tokens and fingerprints compare byte for byte (binary collations): "abc" and "ABC" are different keys.
-- Timestamps are DATETIME in UTC, written with UTC_TIMESTAMP(3).
CREATE TABLE IF NOT EXISTS ${table} (
    scope            VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    idem_key         VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    fingerprint      VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    status           VARCHAR(16)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner_token      VARCHAR(36)  CHARACTER SET ascii COLLATE ascii_bin NULL,
    lease_expires_at DATETIME(3) NULL,
    response_status  INT NULL,
    response_headers MEDIUMTEXT CHARACTER SET utf8mb4 NULL,
    response_body    LONGBLOB NULL,
    attempts         INT NOT NULL,
    created_at       DATETIME(3) NOT NULL,
    updated_at       DATETIME(3) NOT NULL,
    expires_at       DATETIME(3) NOT NULL,
    PRIMARY KEY (scope, idem_key),
    INDEX ${name}_lease_idx (status, lease_expires_at),
    INDEX ${name}_expiry_idx (status, expires_at),
    INDEX ${name}_updated_idx (status, updated_at)
) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS ${table}_schema (
    version      INT NOT NULL PRIMARY KEY,
    installed_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE = InnoDB;
INSERT IGNORE INTO ${table}_schema (version) VALUES (1);
