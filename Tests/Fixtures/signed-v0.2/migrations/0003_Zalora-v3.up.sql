-- Rename `keywords` to `tags` and require a name. SQLite 3.15.2 has no
-- RENAME COLUMN and cannot add NOT NULL to a column: rebuild the table.
CREATE TABLE brandRGDB_v3 (
    brandId TEXT PRIMARY KEY,
    image TEXT,
    tags TEXT,
    name TEXT NOT NULL DEFAULT '',
    language TEXT
);
INSERT INTO brandRGDB_v3 (brandId, image, tags, name, language)
    SELECT brandId, image, keywords, IFNULL(name, ''), language FROM brandRGDB;
DROP TABLE brandRGDB;
ALTER TABLE brandRGDB_v3 RENAME TO brandRGDB;
CREATE INDEX brandRGDB_on_language ON brandRGDB(language);
