#ifndef STOWAGE_FAULTS_H
#define STOWAGE_FAULTS_H

// A fault-injecting SQLite VFS for the reliability suite (RELIABILITY.md, "I/O errors").
// Implemented in stowage_faults.c.

#endif
