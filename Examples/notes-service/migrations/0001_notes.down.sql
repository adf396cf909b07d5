DROP INDEX note_on_user;
DROP TABLE note;
