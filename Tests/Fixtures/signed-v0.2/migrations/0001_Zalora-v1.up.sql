-- Brands as the Zalora app stores them.
CREATE TABLE brandRGDB (
    brandId TEXT PRIMARY KEY,
    image TEXT,
    keywords TEXT,
    name TEXT
);
