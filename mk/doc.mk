# The man pages and bash completions (docs/api.md "Man pages and completions"), each
# written by its built tool from its own option tables (`nmt-X --help=man`, `--help=bash`;
# lib/base/cli_doc.h), so nothing here or anywhere else says a second time what an option
# does. Included by the Makefile after mk/lib.mk; make install puts them in
# $(MANDIR)/man1 and $(BASHCOMPDIR) (where bash-completion looks for a command's file by
# its name), make uninstall removes them.
DOC_TOOLS   := $(sort $(TOOLS))
MAN_DIR     := $(BUILD)/man
COMPL_DIR   := $(BUILD)/completions
MAN_PAGES   := $(DOC_TOOLS:%=$(MAN_DIR)/nmt-%.1)
COMPLETIONS := $(DOC_TOOLS:%=$(COMPL_DIR)/nmt-%)
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

# A page's SEE ALSO names every tool: the list is compiled into cli_man.o, rebuilt when a
# tool comes or goes (the stamp changes with the list, as libnmt.list does).
TOOL_LIST := $(BUILD)/tools.list
$(shell mkdir -p $(BUILD) && echo '$(DOC_TOOLS)' | cmp -s - $(TOOL_LIST) 2>/dev/null || echo '$(DOC_TOOLS)' > $(TOOL_LIST))
$(BUILD)/lib/base/cli_man.o $(PIC)/lib/base/cli_man.o: CFLAGS += -DNMT_TOOL_NAMES='"$(DOC_TOOLS)"'
$(BUILD)/lib/base/cli_man.o $(PIC)/lib/base/cli_man.o: $(TOOL_LIST)

# (written to a temporary name first: a tool that fails leaves no half page behind)
$(MAN_DIR)/nmt-%.1: $(BIN)/nmt-%
	@mkdir -p $(MAN_DIR)
	$< --help=man > $@.tmp && mv $@.tmp $@
$(COMPL_DIR)/nmt-%: $(BIN)/nmt-%
	@mkdir -p $(COMPL_DIR)
	$< --help=bash > $@.tmp && mv $@.tmp $@

.PHONY: doc install-doc uninstall-doc
doc: $(MAN_PAGES) $(COMPLETIONS)

install-doc: doc
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(COMPLETIONS) $(DESTDIR)$(BASHCOMPDIR)

uninstall: uninstall-doc
uninstall-doc:
	rm -f $(DOC_TOOLS:%=$(DESTDIR)$(MANDIR)/man1/nmt-%.1) $(DOC_TOOLS:%=$(DESTDIR)$(BASHCOMPDIR)/nmt-%)
