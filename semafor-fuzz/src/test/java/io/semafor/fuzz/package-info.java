/** What the fuzz targets share: a machine driven like the edge drives it, with its invariants. */
@NullMarked
package io.semafor.fuzz;

import org.jspecify.annotations.NullMarked;
