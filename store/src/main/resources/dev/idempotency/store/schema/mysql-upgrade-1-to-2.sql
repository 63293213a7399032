-- Idempotency store schema upgrade from version 1 to version 2, for MariaDB and MySQL: run this, then mysql.sql.
-- Version 1 compared scopes and keys under PAD SPACE collations (utf8mb4_bin, ascii_bin): "abc " equalled "abc".
-- Version 2 keeps them as VARBINARY holding the same UTF-8 bytes, compared byte for byte. No row changes value and
-- no two rows can collide (PAD SPACE kept at most one of each pair). The table is rebuilt: on a large table, run it
-- in a quiet moment (schema=create runs it by itself when it finds version 1).
ALTER TABLE ${table}
    MODIFY scope       VARBINARY(1020) NOT NULL,
    MODIFY idem_key    VARBINARY(1020) NOT NULL,
    MODIFY fingerprint VARBINARY(512)  NOT NULL,
    MODIFY status      VARBINARY(16)   NOT NULL,
    MODIFY owner_token VARBINARY(36)   NULL;
