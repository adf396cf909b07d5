# Written by `migrate-tool hash --sign`: an Ed25519 signature over migrations.sum by key 554b4a819fc751e6.
signature ed25519 554b4a819fc751e6 ZsoDY/8McFJXsOGf6nEqAlSPKg3e50S2XFbc0Pd3dPnNCA3LLETzbwCAXij6U6VLH5bBg5xHr5FjiIfSpD0QDg==
