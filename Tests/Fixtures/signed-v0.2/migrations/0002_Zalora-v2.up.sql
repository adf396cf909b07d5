-- Brands per language, looked up by language.
ALTER TABLE brandRGDB ADD COLUMN language TEXT;
CREATE INDEX brandRGDB_on_language ON brandRGDB(language);
