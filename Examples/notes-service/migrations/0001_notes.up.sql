-- The notes of each user.
CREATE TABLE note (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL,
    text TEXT NOT NULL,
    createdAt DATETIME NOT NULL
);
CREATE INDEX note_on_user ON note (user);
