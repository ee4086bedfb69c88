// header_all.c as C++ (-std=c++11 -pedantic).
#include "header_all.c"
