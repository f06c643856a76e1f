/*
 * Listings of directories that answer for their children. A walk that
 * asks about many paths sharing a few parents (the classes' locations
 * under the home, ~/.config, /etc), most of them missing, lists a parent
 * once a second child of it is asked about, and reads from the listing
 * whether a child is missing and what type it is, instead of one system
 * call per path. A parent that cannot be listed and searched, holds more
 * than DIR_LISTING_MAX entries, or lies where names are not compared byte
 * for byte, is not listed: the caller asks about each child itself.
 */
#ifndef PROCAGE_DIR_LISTINGS_H
#define PROCAGE_DIR_LISTINGS_H

#include <stddef.h>

#define DIR_LISTING_MAX 512

struct dir_listing;

/* The parents seen by one walk; zero-initialised to begin. */
struct dir_listings {
	struct dir_listing *dirs;
	size_t n;
};

/*
 * What the listing of path's parent says of path (absolute, resolved up to
 * its last component): 1, present, with its DT_* type in *type (maybe
 * DT_UNKNOWN); 0, missing; -1, no listing to say (ask the file system).
 */
int dir_listings_find(struct dir_listings *l, const char *path, unsigned char *type);

void dir_listings_free(struct dir_listings *l);

#endif
