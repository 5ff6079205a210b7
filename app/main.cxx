#include "app/commands.h"

int main(int argc, char** argv) { return gregor::app::main(argc, argv); }
