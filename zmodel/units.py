"""Binary and decimal multiples of the byte, the one place their values are written.

Sizes inside the models are in bytes ``[B]`` and rates in bytes per second ``[B/s]``;
vendor units are converted once, where data are loaded or a component is built, with
these constants. IEC 80000-13 binary prefixes (KiB = 2**10 B) and SI decimal ones
(kB = 10**3 B): the documents write "KB", "MB", "GB" for both, so each use says which
reading it takes. This module sits at the bottom of the package and imports nothing.

>>> from zmodel.units import GiB, KiB, MB
>>> 16 * KiB, GiB // KiB, 400 * MB
(16384, 1048576, 400000000)
"""

__all__ = ["KiB", "MiB", "GiB", "TiB", "kB", "MB", "GB", "TB"]

#: kibibyte, 2**10 bytes [B]
KiB = 2 ** 10
#: mebibyte, 2**20 bytes [B]
MiB = 2 ** 20
#: gibibyte, 2**30 bytes [B]
GiB = 2 ** 30
#: tebibyte, 2**40 bytes [B]
TiB = 2 ** 40
#: kilobyte, 10**3 bytes [B]
kB = 10 ** 3
#: megabyte, 10**6 bytes [B]
MB = 10 ** 6
#: gigabyte, 10**9 bytes [B]
GB = 10 ** 9
#: terabyte, 10**12 bytes [B]
TB = 10 ** 12
