# libnmt.so, the public face of lib/ (docs/api.md); included by the Makefile.
# Every lib/ source again, position-independent and with hidden symbols, into $(BUILD)/pic/;
# linked with the export list lib/api/libnmt.map, so that the library exports the names of
# include/nmt.h and nothing else (libnmt.a, which the tools link, exports everything and
# is not installed). The SONAME is libnmt.so.MAJOR: MAJOR changes when a program built
# against an older include/nmt.h could break (a function removed or changed, a struct's
# fields reordered); MINOR when functions are added; PATCH for fixes.
NMT_MAJOR := $(shell sed -n 's/^\#define NMT_VERSION_MAJOR //p' include/nmt.h)
NMT_MINOR := $(shell sed -n 's/^\#define NMT_VERSION_MINOR //p' include/nmt.h)
NMT_PATCH := $(shell sed -n 's/^\#define NMT_VERSION_PATCH //p' include/nmt.h)
SO_NAME   := libnmt.so.$(NMT_MAJOR)
SO_FILE   := libnmt.so.$(NMT_MAJOR).$(NMT_MINOR).$(NMT_PATCH)
PIC       := $(BUILD)/pic
PIC_OBJ   := $(LIB_SRC:%.c=$(PIC)/%.o) $(LIB_CXX:%.cc=$(PIC)/%.o)
SO_MAP    := lib/api/libnmt.map
LIBDIR    ?= $(PREFIX)/lib
PYDIR     ?= $(PREFIX)/lib/python3/dist-packages

$(PIC)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@
$(PIC)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

# (as needed: the libraries its objects call; without Open MPI, which only nmt-train runs under)
$(BUILD)/$(SO_FILE): $(PIC_OBJ) $(SO_MAP) $(LIB_LIST)
	$(CC) -shared -pthread $(SAN) -Wl,-soname,$(SO_NAME) -Wl,--version-script=$(SO_MAP) -Wl,--no-undefined \
	  -Wl,--as-needed $(PIC_OBJ) $(LDLIBS) -o $@
$(BUILD)/$(SO_NAME): $(BUILD)/$(SO_FILE)
	ln -sf $(SO_FILE) $@
$(BUILD)/libnmt.so: $(BUILD)/$(SO_NAME)
	ln -sf $(SO_NAME) $@
.PHONY: shared
shared: $(BUILD)/libnmt.so

# pkg-config's file for an installed tree (prefix as installed, without DESTDIR)
define NMT_PC
prefix=$(PREFIX)
libdir=$(LIBDIR)
includedir=$(PREFIX)/include

Name: nmt
Description: neural machine translation (translate, score, tokenize, BPE)
Version: $(NMT_MAJOR).$(NMT_MINOR).$(NMT_PATCH)
Libs: -L$${libdir} -lnmt
Cflags: -I$${includedir}
endef
export NMT_PC

# What make install puts beside the tools, and make uninstall removes
.PHONY: install-lib uninstall
install-lib: $(BUILD)/libnmt.so
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PYDIR)/nmt
	install -m 644 include/nmt.h $(DESTDIR)$(PREFIX)/include/nmt.h
	install -m 755 $(BUILD)/$(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_FILE)
	ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libnmt.so
	echo "$$NMT_PC" > $(DESTDIR)$(LIBDIR)/pkgconfig/nmt.pc
	install -m 644 python/nmt/__init__.py $(DESTDIR)$(PYDIR)/nmt/__init__.py
	echo 'LIBRARY = "$(LIBDIR)/$(SO_NAME)"' > $(DESTDIR)$(PYDIR)/nmt/_installed.py

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(PREFIX)/bin/nmt-%) $(DESTDIR)$(PREFIX)/include/nmt.h
	rm -f $(DESTDIR)$(LIBDIR)/$(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_NAME) $(DESTDIR)$(LIBDIR)/libnmt.so
	rm -f $(DESTDIR)$(LIBDIR)/pkgconfig/nmt.pc
	rm -rf $(DESTDIR)$(PYDIR)/nmt

-include $(wildcard $(PIC_OBJ:.o=.d))
