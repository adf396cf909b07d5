-- Back to `keywords`, name nullable again.
CREATE TABLE brandRGDB_v2 (
    brandId TEXT PRIMARY KEY,
    image TEXT,
    keywords TEXT,
    name TEXT,
    language TEXT
);
INSERT INTO brandRGDB_v2 (brandId, image, keywords, name, language)
    SELECT brandId, image, tags, name, language FROM brandRGDB;
DROP TABLE brandRGDB;
ALTER TABLE brandRGDB_v2 RENAME TO brandRGDB;
CREATE INDEX brandRGDB_on_language ON brandRGDB(language);
