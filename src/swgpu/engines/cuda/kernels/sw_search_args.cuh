#pragma once
// Arguments of the sw_search kernel, passed by value as one struct (it lives
// in the kernel's parameter space like separate parameters would). The host
// builds the same layout from this file: swgpu.engines.cuda.search_args reads
// the field list between the FIELDS markers, one field per line, types
// `const T*`, `T*`, `long long` or `int`, so the two cannot drift apart.
//
// Sequence pairs (QP false) and query pairs (QP true) read different fields:
// each field says which mode reads it; the other mode leaves it null / 0.
struct SwpArgs {
    // FIELDS BEGIN
    const uint4* prof;          // query profile: nlet x qstride units of 16 bytes (both modes)
    const unsigned char* codes; // database codes: pairs 16 bits per column, QP 8 bits (both)
    const long long* pair_off;  // pairs: first column of pair k
    const int* pair_len;        // pairs: columns of pair k (a multiple of 4)
    const long long* chunk_cols; // QP: columns [chunk_cols[2k], chunk_cols[2k + 1]) of chunk k
    const int* chunk_first;     // QP: first sequence (unit) of chunk k
    const int* orig;            // original sequence index: pairs two per pair (b may be -1), QP one per unit
    unsigned int* bnd;          // boundary buffer between passes, BW words per column (both)
    const int* seg;             // QP: flags of segment p * G + t (bits 0/1 start, 2/3 hold a query)
    const int* slot;            // QP: query slot of segment s and half h at [2 * s + h]
    int* scores;                // pairs: per original sequence; QP: slot * nunits + sequence
    long long qstride;          // profile units per letter
    int nlet;                   // profile letters (alphabet + pad, QP + 2 closing letters)
    int npass;                  // passes of G * R query rows
    int ngroups;                // groups (pairs or chunks) of this launch
    int first;                  // first pair / chunk of this launch
    int nunits;                 // QP: sequences per score row
    int gap_open;
    int gap_ext;
    int pad;                    // the pad letter's code
    // FIELDS END
};
