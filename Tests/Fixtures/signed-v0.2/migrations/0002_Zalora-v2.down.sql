-- SQLite 3.15.2 has no DROP COLUMN: rebuild the table without `language`.
DROP INDEX brandRGDB_on_language;
CREATE TABLE brandRGDB_v1 (
    brandId TEXT PRIMARY KEY,
    image TEXT,
    keywords TEXT,
    name TEXT
);
INSERT INTO brandRGDB_v1 (brandId, image, keywords, name)
    SELECT brandId, image, keywords, name FROM brandRGDB;
DROP TABLE brandRGDB;
ALTER TABLE brandRGDB_v1 RENAME TO brandRGDB;
